/**
 * Store requests over NATS: how `metalfleet apply` and `metalfleet delete` change the cluster's
 * stores through a node instead of writing NATS KV themselves (only nodes write the stores).
 *
 * Subjects `<cluster>.store.apply` and `<cluster>.store.delete`, request/reply; every node with
 * the NATS store answers (queue group `mf-store`). Payload: MessagePack; on a node started with
 * `--authorized-keys`, inside the signed envelope of host commands (src/bus/messages/command.ts),
 * signed by an `operator` key. One object per request, so no request outgrows NATS's max payload.
 *
 * Apply (`StoreApplyRequest`): `{ phase, document: { file, index, line?, object } }`. `phase`
 * `check` asks only what apply would refuse (MaasMachines, MaasClusters and the Cluster API
 * objects, whose store can check without writing), `apply` (default) writes. The node applies
 * the document exactly as `metalfleet apply` did before: BareMetalHosts through the host store's
 * update rules, the MAAS and Cluster API kinds through the object store, Secrets refused, other
 * kinds skipped. Reply (`StoreApplyReply`): `{ issues, hosts, objects, skipped, warnings }`;
 * nothing was written when `issues` is not empty.
 *
 * Delete (`StoreDeleteRequest`): `{ host, kind? }`, `kind` one of the kinds apply takes
 * (`BareMetalHost`, the default, as before there was a kind; `MaasMachine`, `MaasCluster`,
 * `Machine`, `Cluster`), each deleted from the store apply wrote it to; reply `{ host, outcome:
 * deleted | terminating, finalizers }`. Errors, as for host commands: `notFound`, `invalidMessage`, `unavailable`
 * (retryable), `unauthorized`, `forbidden`. Every apply and delete is recorded in `mf-audit`.
 */
import { z } from 'zod';
import { HostKey } from '../../bus/messages/index.ts';

export const StorePhase = z.enum(['check', 'apply']);

export const StoreDocument = z.strictObject({
  file: z.string().max(4_096),
  index: z.number().int().nonnegative(),
  /** Its place in its document's List `items`, for a List's item. */
  item: z.number().int().nonnegative().optional(),
  line: z.number().int().positive().optional(),
  object: z.unknown(),
});

export const StoreApplyRequest = z.strictObject({
  phase: StorePhase.default('apply'),
  document: StoreDocument,
});
export type StoreApplyRequest = z.infer<typeof StoreApplyRequest>;
export type StoreApplyInput = z.input<typeof StoreApplyRequest>;

export const StoreIssue = z.strictObject({
  file: z.string(),
  index: z.number(),
  item: z.number().optional(),
  line: z.number().optional(),
  kind: z.string().optional(),
  key: z.string().optional(),
  path: z.string(),
  message: z.string(),
});

export type StoreIssue = z.infer<typeof StoreIssue>;

export const StoreApplyReply = z.strictObject({
  issues: z.array(StoreIssue),
  hosts: z.array(z.strictObject({ key: z.string(), outcome: z.enum(['created', 'updated', 'unchanged']) })),
  objects: z.array(z.strictObject({ kind: z.string(), key: z.string() })),
  skipped: z.array(z.strictObject({ kind: z.string(), key: z.string().optional() })),
  warnings: z.array(z.string()),
});
export type StoreApplyReply = z.infer<typeof StoreApplyReply>;

/** What delete takes: the kinds apply writes (a BareMetalHost to the host store, the rest to the object store). */
export const STORE_DELETE_KINDS = ['BareMetalHost', 'MaasMachine', 'MaasCluster', 'Machine', 'Cluster', 'HardwareData', 'FirmwareSchema', 'HostFirmwareSettings', 'HostFirmwareComponents', 'HostUpdatePolicy'] as const;
export const StoreDeleteKind = z.enum(STORE_DELETE_KINDS, { error: () => `must be one of ${STORE_DELETE_KINDS.join(', ')}` });
export type StoreDeleteKind = z.infer<typeof StoreDeleteKind>;

// No kind: a BareMetalHost, which is all a delete named before kinds were sent.
export const StoreDeleteRequest = z.strictObject({ host: HostKey, kind: StoreDeleteKind.default('BareMetalHost') });
export type StoreDeleteRequest = z.infer<typeof StoreDeleteRequest>;
export type StoreDeleteInput = z.input<typeof StoreDeleteRequest>;

export const StoreDeleteReply = z.strictObject({
  host: z.string(),
  outcome: z.enum(['deleted', 'terminating']),
  finalizers: z.array(z.string()),
});
export type StoreDeleteReply = z.infer<typeof StoreDeleteReply>;
