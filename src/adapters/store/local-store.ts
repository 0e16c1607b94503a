import { readManifests } from '../../api/manifest.ts';
import type { Logger, Transport } from '../../ports/index.ts';
import { createSecretMap } from './memory-secrets.ts';
import type { SecretMap } from './memory-secrets.ts';
import { openNatsStoreOn } from './nats-store.ts';
import type { NatsApplyResult, NatsStore } from './nats-store.ts';
import { validateDocuments } from './validate.ts';
import type { KvObjectStore } from './kv-object-store.ts';
import { storedKindOf } from './kv-object-store.ts';
import type { ApplyIssue, SourceDocument } from './validate.ts';

/**
 * The embedded default's host store: the KV store a cluster uses, on the process's own KV, with
 * the Secrets of the applied manifests kept beside it in memory (never in KV, as in a cluster).
 */
export interface LocalStore extends NatsStore {
  readonly secrets: SecretMap;
  /** The MAAS side's store, when the options opened one. */
  readonly objects: KvObjectStore | null;
  /** Secrets go to the secret map, everything else to the KV store; all validated first. */
  applyLocal(docs: readonly SourceDocument[]): Promise<NatsApplyResult>;
  /** As applyLocal, for plain objects (a generated fleet, a test's manifests). */
  applyObjects(objects: readonly unknown[], file?: string): Promise<NatsApplyResult>;
  /** As applyLocal, for the text of a YAML or JSON manifest file. */
  applyText(text: string, file: string): Promise<NatsApplyResult>;
}

export interface LocalStoreOptions {
  readonly log?: Logger;
  readonly pluginBmcSchemes?: readonly string[];
  /** Where MaasMachines, MaasClusters and Cluster API objects go (given: the object store opened on `secrets`). */
  readonly objects?: (secrets: SecretMap) => Promise<KvObjectStore>;
}

export async function openLocalStore(transport: Pick<Transport, 'kv'>, options: LocalStoreOptions = {}): Promise<LocalStore> {
  const secrets = createSecretMap();
  const { objects: openObjects, ...rest } = options;
  const store = await openNatsStoreOn(transport, { secrets, ...rest });
  const objects = openObjects ? await openObjects(secrets) : null;
  const applyLocal = async (docs: readonly SourceDocument[]): Promise<NatsApplyResult> => {
    const secretDocs = docs.filter((d) => d.yamlError === undefined && isSecret(d.object));
    const checked = validateDocuments(secretDocs, () => undefined, false);
    const objectDocs = objects ? docs.filter((d) => d.yamlError === undefined && storedKindOf(d.object) !== null) : [];
    const hostDocs = docs.filter((d) => d.yamlError !== undefined || (!isSecret(d.object) && !objectDocs.includes(d)));
    const objectIssues: ApplyIssue[] = objects ? objects.check(objectDocs.map((d) => d.object)).map((i) => {
      const doc = objectDocs[i.index] as SourceDocument;
      return { file: doc.file, index: doc.index, ...(doc.line !== undefined ? { line: doc.line } : {}), ...(i.kind ? { kind: i.kind } : {}), ...(i.key ? { key: i.key } : {}), path: i.path, message: i.message };
    }) : [];
    if (checked.issues.length > 0 || objectIssues.length > 0) {
      // Nothing is stored when anything is wrong: report the hosts' problems too.
      const dry = hostDocs.length > 0 ? validateDocuments(hostDocs).issues : [];
      return refused(ordered(docs, [...checked.issues, ...objectIssues, ...dry]));
    }
    const applied = await store.applyDocuments(hostDocs);
    if (!applied.ok) return applied;
    if (objects && objectDocs.length > 0) await objects.apply(objectDocs.map((d) => d.object));
    const added: string[] = [];
    for (const doc of checked.valid) {
      if (doc.type !== 'secret') continue;
      secrets.set(doc.secret);
      added.push(doc.key);
    }
    return { ...applied, secrets: added };
  };
  return Object.assign(store, {
    secrets,
    objects,
    applyLocal,
    applyObjects: (objects: readonly unknown[], file = '(objects)') => applyLocal(objects.map((object, index) => ({ file, index, object }))),
    applyText: (text: string, file: string) => applyLocal(readManifests(text, file)),
  });
}

function isSecret(object: unknown): boolean {
  return typeof object === 'object' && object !== null && (object as { kind?: unknown }).kind === 'Secret';
}

function ordered(docs: readonly SourceDocument[], issues: ApplyIssue[]): ApplyIssue[] {
  const position = (issue: ApplyIssue): number => docs.findIndex((d) => d.file === issue.file && d.index === issue.index);
  return issues.sort((a, b) => position(a) - position(b));
}

function refused(issues: ApplyIssue[]): NatsApplyResult {
  return { ok: false, issues, created: [], updated: [], unchanged: [], secrets: [], skipped: [], warnings: [], hosts: [] };
}
