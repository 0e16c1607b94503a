import type { Fence, HostData, OwnerRecord } from '../../../ports/index.ts';
import { compareOwner, OWNER_RECORD_KEY, ownerRecordFor, ownerRecordOf, StaleOwner } from '../../../ports/index.ts';
import type { IronicClient, IronicNode } from '../client/index.ts';
import { MetalfleetError } from '../../../api/index.ts';

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
export const OWNER_EXTRA = OWNER_RECORD_KEY;

/** The owner recorded on a node; null when none, or when the record is not ours to read. */
export function recordedOwner(node: IronicNode): OwnerRecord | null {
  return ownerRecordOf(node.extra?.[OWNER_EXTRA]);
}

/**
 * Compares the node's recorded owner with `fence` and records `fence` when it is newer. Throws
 * StaleOwner when a later epoch of the same shard is recorded. Recording is best effort: a node
 * locked by a running step answers 409, and the comparison still guards the next read.
 */
/**
 * 'held' when the record is the caller's already; 'recorded' with the node as the PATCH answered
 * it (Ironic answers a PATCH with the whole node: the call goes on with it, no read after);
 * 'later' when the write is left to a later call.
 */
export async function claimNode(client: IronicClient, node: IronicNode, fence: Fence): Promise<{ readonly standing: 'held' | 'later' } | { readonly standing: 'recorded'; readonly node: IronicNode }> {
  const recorded = recordedOwner(node);
  const standing = compareOwner(recorded, fence);
  if (standing === 'newer' && recorded) throw new StaleOwner(`Ironic node ${node.uuid}`, recorded, fence);
  if (standing === 'same') return HELD;
  // A node a conductor holds (a step running) would answer 409 after the client's lock retries:
  // record on a later call instead of waiting here.
  if (node.reservation) return LATER;
  return client.patchNode(node.uuid, [{ op: 'add', path: `/extra/${OWNER_EXTRA}`, value: ownerRecordFor(fence) }]).then((patched) => ({ standing: 'recorded' as const, node: patched }), () => LATER);
}

const HELD = { standing: 'held' } as const;
const LATER = { standing: 'later' } as const;

// The client's calls that change Ironic: each asks the lease right before it is sent.
const WRITES = ['createNode', 'patchNode', 'deleteNode', 'createPort', 'setProvisionState', 'setPowerState', 'setTargetRaidConfig', 'setMaintenance', 'unsetMaintenance'] as const;

/** `client`, with every write refused (StaleOwner) once `host.leaseHeld` says the lease is gone. */
export function leaseGuardedClient(client: IronicClient, host: HostData): IronicClient {
  const held = host.leaseHeld;
  if (!held) return client;
  const guarded: Partial<Record<(typeof WRITES)[number], unknown>> = {};
  // And asks it again as each write's request gets its connection: it may have waited for one.
  // Built at the first write: most steps only read.
  let leaving: IronicClient | undefined;
  for (const name of WRITES) {
    guarded[name] = (...args: unknown[]) => {
      if (!held()) return Promise.reject(new LeaseNotHeld(`the shard lease of ${host.key} is no longer safely held on this node; Ironic was not called (${name})`));
      leaving ??= client.withLeaveCheck(held);
      return (leaving[name] as (...a: unknown[]) => Promise<unknown>).apply(leaving, args);
    };
  }
  // Everything else (reads, stats, version) is the client's own.
  return new Proxy(client, { get: (target, prop, receiver) => (prop in guarded ? guarded[prop as keyof typeof guarded] : Reflect.get(target, prop, receiver)) });
}

/** A write refused because the caller's lease is no longer safely held; transient for the host. */
export class LeaseNotHeld extends MetalfleetError {
  constructor(message: string) {
    super('leaseNotHeld', message, true);
    this.name = 'LeaseNotHeld';
  }
}
