import { randomInt } from 'node:crypto';
import { generatedName, pendingGenerateName, withName } from '../../api/generate-name.ts';
import type { SourceDocument } from './validate.ts';

// Where the stores create objects, an object named only by metadata.generateName gets its name
// here, once, as the API server names it on create. Apply is create-or-update by name, so such an
// object is created anew by every apply that carries it (kubectl create, not kubectl apply, which
// refuses it): the result says which name it got, and later applies must use that name.

// The API server retries a generated name that is taken (RetryGenerateName) up to 7 more times.
const ATTEMPTS = 8;

function namespaceOf(object: unknown): string {
  const ns = (object as { metadata?: { namespace?: unknown } }).metadata?.namespace;
  return typeof ns === 'string' && ns !== '' ? ns : 'default';
}

/**
 * The object named, when it has a generateName and no name: a name not `taken` (by
 * `namespace/name`), or the last one tried when all were (the create then fails as taken).
 */
export function nameOnCreate(object: unknown, taken: (key: string) => boolean, randomIndex: (n: number) => number = randomInt): { object: unknown; generated: boolean } {
  const base = pendingGenerateName(object);
  if (base === null) return { object, generated: false };
  const ns = namespaceOf(object);
  let name = generatedName(base, randomIndex);
  for (let i = 1; i < ATTEMPTS && taken(`${ns}/${name}`); i++) name = generatedName(base, randomIndex);
  return { object: withName(object, name), generated: true };
}

/**
 * Every document named for its create; a name is not reused within the batch. Documents that were
 * named are marked `generated`, so a store creates them and never updates an object in their place.
 */
export function nameDocuments(docs: readonly SourceDocument[], taken: (key: string) => boolean): SourceDocument[] {
  const given = new Set<string>();
  return docs.map((doc) => {
    if (doc.yamlError !== undefined || doc.generated) return doc;
    const named = nameOnCreate(doc.object, (key) => given.has(key) || taken(key));
    if (!named.generated) return doc;
    const meta = (named.object as { metadata: { name: string } }).metadata;
    given.add(`${namespaceOf(named.object)}/${meta.name}`);
    return { ...doc, object: named.object, generated: true };
  });
}
