import type { z } from 'zod';
import { deepEqual, formatFieldPath, pruneHostNulls, pruneNulls, valueAt, type FieldError, type ValidatedKind } from '../../../api/index.ts';
import { CUSTOM_RESOURCES } from '../../../machines/kinds.ts';
import { structuralErrors } from '../../../api/maas/structural.ts';

// CRD validation ratcheting (reference/kube-api.md §8). The API server checks an UPDATE against the
// CRD schema before it calls the validating webhooks, and lets through a value the schema refuses
// when the update leaves it as stored: an object written under a looser CRD (an older metalfleet's)
// stays editable. The webhook checks the same schema again (validateObject, as `metalfleet
// validate`); without ratcheting that check could only deny what the API server chose to keep, the
// controller's finalizer removal included. Only the schema's errors ratchet: BMO's and CAPMAAS's
// webhook rules are re-run on every update by their webhooks, and so they are here.

type SchemaIssue = { path: string; reason: string; segments: readonly PropertyKey[] };

// Each kind's structural schema, the one its CRD is generated from (the kinds registry), and the
// object as validateObject parses it (nulls pruned as the API server prunes them), so an issue here
// is one validateObject reported, word for word.
function schemaOf(kind: ValidatedKind): z.ZodType {
  const resource = CUSTOM_RESOURCES.find((r) => r.kind === kind);
  if (!resource) throw new Error(`ratchet: no custom resource for kind ${kind}`);
  return resource.schema;
}
const pruneOf = (kind: ValidatedKind): ((obj: unknown) => unknown) => (kind === 'BareMetalHost' ? pruneHostNulls : pruneNulls);

function schemaIssues(kind: ValidatedKind, raw: unknown): SchemaIssue[] {
  const schema = schemaOf(kind);
  const parsed = schema.safeParse(raw);
  if (parsed.success) return [];
  const segments = parsed.error.issues.map((issue) => issue.path);
  // The BareMetalHost's errors carry zod's own message (bmh/validate.ts), the other kinds' the API
  // server's words (maas/structural.ts), issue for issue in the same order.
  const reasons = kind === 'BareMetalHost' ? parsed.error.issues.map((issue) => issue.message) : structuralErrors(schema, raw).map((e) => e.reason);
  return segments.map((path, i) => ({
    path: formatFieldPath(path.map((p) => (typeof p === 'number' ? p : String(p)))) || '(root)',
    reason: reasons[i] ?? '',
    segments: path,
  }));
}

/**
 * The value a schema error is about, as the API server correlates it with the stored object: a
 * missing field is its parent's error, and a list is one value (its items are not matched up), so
 * the node stops at the first index. Comparing a larger node than the API server would only
 * ratchets less, never more.
 */
function correlatedNode(raw: unknown, segments: readonly PropertyKey[]): readonly PropertyKey[] {
  const node = valueAt(raw, segments) === undefined ? segments.slice(0, -1) : segments;
  const index = node.findIndex((s) => typeof s === 'number');
  return index < 0 ? node : node.slice(0, index);
}

/**
 * `errors` of an UPDATE without the schema errors of values the update leaves unchanged. `object`
 * and `old` are the review's objects as validateObject read them.
 */
export function ratchetUpdate(kind: ValidatedKind, object: unknown, old: unknown, errors: readonly FieldError[]): FieldError[] {
  const prune = pruneOf(kind);
  const next = prune(object);
  const issues = schemaIssues(kind, next);
  if (issues.length === 0) return [...errors];
  const stored = prune(old);
  return errors.filter((e) => {
    const issue = issues.find((i) => i.path === e.path && i.reason === e.reason);
    if (issue === undefined) return true;
    const node = correlatedNode(next, issue.segments);
    return !deepEqual(valueAt(next, node), valueAt(stored, node));
  });
}
