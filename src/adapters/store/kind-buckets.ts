import { kindNamed } from '../../machines/kinds.ts';

/**
 * The KV bucket a kind keeps its objects in for `role`, as its kind.ts declares it (`buckets`):
 * the KV stores open these, so a kind's records live where its declaration says.
 */
export function declaredBucket(kind: string, role: string): string {
  const bucket = kindNamed(kind)?.buckets[role];
  if (bucket === undefined) throw new TypeError(`kind ${kind} declares no ${role} bucket; its kind.ts names the buckets its objects live in`);
  return bucket;
}
