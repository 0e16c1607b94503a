import type { ManifestDocument } from '../../api/manifest.ts';
import { pendingGenerateName } from '../../api/index.ts';

// `validate --old`: the stored versions an update is checked against. An object is matched by
// kind, namespace and name; one named only by generateName (the API server names it on create) by
// kind, namespace and generateName, the first old one to the first new one, and so on. A stored
// version nothing matched is reported: its update rules were never applied, which a typo in a
// name would otherwise pass off as a clean run.

type Entry = { readonly kind: string; readonly doc: ManifestDocument; readonly order: number; used: boolean };

/** How an old object that matched nothing is named in its report. */
export type Unmatched = { readonly file: string; readonly line: number; readonly description: string };

function keyOf(kind: string, doc: ManifestDocument): { key: string; byGenerateName: boolean } | null {
  // '/' and ':' appear in no Kubernetes name, so a name and a generateName never share a key.
  if (doc.name) return { key: `${kind}/${doc.namespace}/name:${doc.name}`, byGenerateName: false };
  const generate = pendingGenerateName(doc.object);
  return generate === null ? null : { key: `${kind}/${doc.namespace}/generateName:${generate}`, byGenerateName: true };
}

function describe(kind: string, doc: ManifestDocument): string {
  const generate = pendingGenerateName(doc.object);
  const what = doc.name ? `${kind}/${doc.name}` : generate !== null ? `${kind} with generateName ${JSON.stringify(generate)}` : `${kind} (no metadata.name or generateName)`;
  return `${what} in namespace ${doc.namespace}`;
}

export class OldVersions {
  private readonly byKey = new Map<string, Entry[]>();
  // Old objects of a checked kind that no key can match (no name, no generateName).
  private readonly nameless: Entry[] = [];
  private count = 0;

  add(kind: string, doc: ManifestDocument): void {
    const entry: Entry = { kind, doc, order: this.count++, used: false };
    const found = keyOf(kind, doc);
    if (found === null) {
      this.nameless.push(entry);
      return;
    }
    const entries = this.byKey.get(found.key);
    if (entries) entries.push(entry);
    else this.byKey.set(found.key, [entry]);
  }

  /** The stored version `doc` updates, if any; a create otherwise. */
  take(kind: string, doc: ManifestDocument): unknown {
    const found = keyOf(kind, doc);
    const entries = found === null ? undefined : this.byKey.get(found.key);
    if (found === null || entries === undefined) return undefined;
    if (found.byGenerateName) {
      // One stored object per generated one: pairs in the order the files list them.
      const next = entries.find((e) => !e.used);
      if (next === undefined) return undefined;
      next.used = true;
      return next.doc.object;
    }
    // By name, as before: the last version listed stands, and every version of it is accounted for.
    for (const e of entries) e.used = true;
    return entries.at(-1)?.doc.object;
  }

  /** The old objects no checked object matched, in the order they were listed. */
  unmatched(): Unmatched[] {
    const left = [...this.nameless];
    for (const entries of this.byKey.values()) for (const e of entries) if (!e.used) left.push(e);
    left.sort((a, b) => a.order - b.order);
    return left.map(({ kind, doc }) => ({ file: doc.file, line: doc.line, description: describe(kind, doc) }));
  }
}
