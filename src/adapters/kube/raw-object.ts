import { z } from 'zod';
import { formatFieldPath } from '../../api/field-error.ts';

// An object as the API server sends it, checked only as far as the cache needs: a name, and the
// metadata writes are built from. Everything else passes through untouched for the kind's own
// parser. Typed list responses carry Dates where watch events carry strings, hence `unknown`.
export const RawMeta = z.looseObject({
  name: z.string().min(1),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: z.number().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  finalizers: z.array(z.string()).optional(),
  deletionTimestamp: z.unknown().optional(),
});

export const RawObject = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: RawMeta,
});
export type RawObject = z.infer<typeof RawObject>;

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problems: readonly string[] };

/** `field.path: message` for each issue; zod messages never echo the input, so no value leaks. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], prefix: readonly (string | number)[] = []): string[] {
  return issues.slice(0, 5).map((issue) => {
    const path = formatFieldPath([...prefix, ...issue.path.filter((s): s is string | number => typeof s !== 'symbol')]);
    return `${path || '(object)'}: ${issue.message}`;
  });
}

export function parseRaw(value: unknown): Parsed<RawObject> {
  const parsed = RawObject.safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problems: describeIssues(parsed.error.issues) };
}

export function rawKey(o: RawObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
}

/** Is `a` a later version than `b`? RVs are etcd revisions (decimal) on a real server; otherwise unknown. */
export function rvNewer(a: string | undefined, b: string | undefined): boolean | undefined {
  if (a === undefined || b === undefined || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return undefined;
  return BigInt(a) > BigInt(b);
}

/**
 * An update that emptied the finalizers of an object being deleted: the API server deleted it
 * and answered with the submitted object (reference/kube-api.md §7), which is no longer stored.
 */
export function removedByUpdate(raw: RawObject): boolean {
  return Boolean(raw.metadata.deletionTimestamp) && (raw.metadata.finalizers ?? []).length === 0;
}
