import { z } from 'zod';
import type { Fence, HostData } from '../../../ports/index.ts';
import type { IronicClient, IronicNode } from '../client/index.ts';

// Fencing at Ironic, which has no compare-and-set for us (issue 19.2). Two guards, both cheap:
// - every write leaves only while the caller's shard lease is safely held, asked right before the
//   request is sent (a step makes several requests; a pause can fall between any two);
// - the owner of a host records its lease (holder, shard, epoch) in the node's `extra`, and every
//   owner compares the record with its own lease on each read before acting: a record of a later
//   epoch of the same shard means another node has taken the host since, so this one stops.
// What this cannot do without compare-and-set: an old owner that read the node just before the new
// owner recorded itself, and whose lease check passed just before a pause, can still send one
// request after the pause. The lease margin (renewed less than TTL minus a margin ago, on the
// monotonic clock) makes that window a pause longer than the margin landing in the microseconds
// between the check and the socket write.

/** The key in a node's `extra` that names its owner. */
export const OWNER_EXTRA = 'metalfleet_owner';

const RecordedOwner = z.object({ holder: z.string(), shard: z.number().int().nonnegative(), epoch: z.number().int().nonnegative() });
type RecordedOwner = z.infer<typeof RecordedOwner>;

/** Why a stale owner did not act; transient for the host (its actor stops once its lease is known lost). */
export class StaleOwner extends Error {
  readonly retryable = true;
  constructor(message: string) {
    super(message);
    this.name = 'StaleOwner';
  }
}

/** The owner recorded on a node; null when none, or when the record is not ours to read. */
export function recordedOwner(node: IronicNode): RecordedOwner | null {
  const parsed = RecordedOwner.safeParse(node.extra?.[OWNER_EXTRA]);
  return parsed.success ? parsed.data : null;
}

/**
 * Compares the node's recorded owner with `fence` and records `fence` when it is newer. Throws
 * StaleOwner when a later epoch of the same shard is recorded. Recording is best effort: a node
 * locked by a running step answers 409, and the comparison still guards the next read.
 */
export async function claimNode(client: IronicClient, node: IronicNode, fence: Fence): Promise<void> {
  const recorded = recordedOwner(node);
  if (recorded && recorded.shard === fence.shard && recorded.epoch > fence.epoch) {
    throw new StaleOwner(`Ironic node ${node.uuid} is driven by ${recorded.holder} (lease epoch ${recorded.epoch} of shard ${recorded.shard}); this node's lease (epoch ${fence.epoch}) is older, so it does not act`);
  }
  if (recorded && recorded.shard === fence.shard && recorded.epoch === fence.epoch && recorded.holder === fence.holder) return;
  // A node a conductor holds (a step running) would answer 409 after the client's lock retries:
  // record on a later call instead of waiting here.
  if (node.reservation) return;
  const mine: RecordedOwner = { holder: fence.holder, shard: fence.shard, epoch: fence.epoch };
  await client.patchNode(node.uuid, [{ op: 'add', path: `/extra/${OWNER_EXTRA}`, value: mine }]).catch(() => undefined);
}

// The client's calls that change Ironic: each asks the lease right before it is sent.
const WRITES = ['createNode', 'patchNode', 'deleteNode', 'createPort', 'setProvisionState', 'setPowerState', 'setMaintenance', 'unsetMaintenance'] as const;

/** `client`, with every write refused (StaleOwner) once `host.leaseHeld` says the lease is gone. */
export function leaseGuardedClient(client: IronicClient, host: HostData): IronicClient {
  const held = host.leaseHeld;
  if (!held) return client;
  const guarded: Partial<Record<(typeof WRITES)[number], unknown>> = {};
  for (const name of WRITES) {
    const write = client[name] as (...args: unknown[]) => Promise<unknown>;
    guarded[name] = (...args: unknown[]) => {
      if (!held()) return Promise.reject(new StaleOwner(`the shard lease of ${host.key} is no longer safely held on this node; Ironic was not called (${name})`));
      return write.apply(client, args);
    };
  }
  // Everything else (reads, stats, version) is the client's own.
  return new Proxy(client, { get: (target, prop, receiver) => (prop in guarded ? guarded[prop as keyof typeof guarded] : Reflect.get(target, prop, receiver)) });
}
