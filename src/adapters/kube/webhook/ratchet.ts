import type { z } from 'zod';
import {
  BareMetalHost, FirmwareSchema, HardwareData, HostFirmwareComponents, HostFirmwareSettings, HostUpdatePolicy,
  MaasCluster, MaasMachine, MaasMachineTemplate, deepEqual, formatFieldPath, pruneHostNulls, pruneNulls, valueAt,
  type FieldError, type ValidatedKind,
} from '../../../api/index.ts';
import { structuralErrors } from '../../../api/maas/structural.ts';

// CRD validation ratcheting (reference/kube-api.md §8). The API server checks an UPDATE against the
// CRD schema before it calls the validating webhooks, and lets through a value the schema refuses
// when the update leaves it as stored: an object written under a looser CRD (an older metalfleet's)
// stays editable. The webhook checks the same schema again (validateObject, as `metalfleet
// validate`); without ratcheting that check could only deny what the API server chose to keep, the
// controller's finalizer removal included. Only the schema's errors ratchet: BMO's and CAPMAAS's
// webhook rules are re-run on every update by their webhooks, and so they are here.

type SchemaIssue = { path: string; reason: string; segments: readonly PropertyKey[] };

// Each kind's structural schema, and the object as validateObject parses it (nulls pruned as the
// API server prunes them), so an issue here is one validateObject reported, word for word.
const BMH = { schema: BareMetalHost as z.ZodType, prune: pruneHostNulls };
const plain = (schema: z.ZodType) => ({ schema, prune: pruneNulls });
const SCHEMAS: Record<ValidatedKind, { schema: z.ZodType; prune: (obj: unknown) => unknown }> = {
  BareMetalHost: BMH,
  HardwareData: plain(HardwareData),
  FirmwareSchema: plain(FirmwareSchema),
  HostFirmwareSettings: plain(HostFirmwareSettings),
  HostFirmwareComponents: plain(HostFirmwareComponents),
  HostUpdatePolicy: plain(HostUpdatePolicy),
  MaasCluster: plain(MaasCluster),
  MaasMachine: plain(MaasMachine),
  MaasMachineTemplate: plain(MaasMachineTemplate),
};

function schemaIssues(kind: ValidatedKind, raw: unknown): SchemaIssue[] {
  const { schema } = SCHEMAS[kind];
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
  const { prune } = SCHEMAS[kind];
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
