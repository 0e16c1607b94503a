import { formatProviderId } from '../../api/index.ts';
import type { MaasMachine } from '../../api/index.ts';
import type { Turn } from './turn.ts';
import type { MaasView } from './types.ts';

// An owner can die between MAAS allocating a machine and the providerID write; the next owner
// (another node after a failover, or this one after a restart) then sees no providerID. CAPMAAS
// would allocate again and leave the first machine Allocated for good. Every allocation is
// therefore tagged with the MaasMachine's identity (MAAS's agent_name, which MAAS keeps on the
// machine until it is released and filters GET /machines/ by), and before allocating, the
// machine asks MAAS for what it holds under that tag and adopts it.

/**
 * The agent_name of this MaasMachine's allocations: its uid, the same for every owner and new for
 * an object deleted and created again under the same name; namespace/name where a store gives no uid.
 */
export function agentNameOf(object: MaasMachine): string {
  return object.metadata.uid ?? `${object.metadata.namespace ?? 'default'}/${object.metadata.name}`;
}

// Tagged machines that are still ours. Released ones (Releasing, Disk erasing, Ready) went back to
// MAAS. Failed deployment counts: the earlier owner got as far as deploying it, and adopting it
// fails this MaasMachine as CAPMAAS fails one whose providerID names a machine in that state
// (no way back to Deployed: MachineHealthCheck replaces it, and its deletion releases the
// machine). Releasing it here and allocating another would instead hide a failed deployment
// behind a crash, and a deploy retried on fresh hardware is the Machine's replacement's job.
const ADOPTABLE: readonly string[] = ['Deployed', 'Deploying', 'Allocated', 'Failed deployment'];

/** Which of the machines MAAS holds under our agent name to adopt: the furthest along, then the lowest system_id. */
export function earlierAllocation(machines: readonly MaasView[]): { adopt: MaasView | null; others: readonly MaasView[] } {
  const ours = machines
    .filter((m) => ADOPTABLE.includes(m.statusName))
    .sort((a, b) => ADOPTABLE.indexOf(a.statusName) - ADOPTABLE.indexOf(b.statusName) || (a.systemId < b.systemId ? -1 : a.systemId > b.systemId ? 1 : 0));
  return { adopt: ours[0] ?? null, others: ours.slice(1) };
}

/** Asks MAAS what it holds for this MaasMachine already (before an allocate, and before a deletion with no machine). */
export function lookForEarlierAllocation(t: Turn): void {
  t.call({ op: 'findAllocated', agentName: agentNameOf(t.s.object) });
}

/** Applies MAAS's answer: adopts the machine an earlier owner allocated, or notes there is none. */
export function applyEarlierAllocation(t: Turn, machines: readonly MaasView[]): void {
  // IDs taken from the object meanwhile (events.ts) win: they are what the store says is ours.
  if (t.s.systemId) return;
  const { adopt, others } = earlierAllocation(machines);
  if (!adopt) {
    t.s.noEarlierAllocation = true;
    return;
  }
  t.s.systemId = adopt.systemId;
  t.s.swapped = false;
  t.s.minKernelSet = false;
  t.s.staticLinked = false;
  t.s.view = adopt;
  t.s.fresh = true;
  t.writeIds({ providerID: formatProviderId(adopt.zone, adopt.systemId), systemID: adopt.systemId, failureDomain: adopt.zone });
  t.event('Normal', 'MachineAdopted', `adopted ${adopt.hostname} (${adopt.systemId}, ${adopt.statusName}) in zone ${adopt.zone}, allocated to this MaasMachine (agent_name ${agentNameOf(t.s.object)}) by an earlier owner`);
  // Two tagged machines mean two owners allocated at once (a split brain); the second is not
  // released by guess: it is named so an operator can release it.
  if (others.length > 0) {
    t.event('Warning', 'MachineAllocatedTwice', `MAAS also holds ${others.map((m) => `${m.systemId} (${m.statusName})`).join(', ')} under agent_name ${agentNameOf(t.s.object)}; only ${adopt.systemId} is used: release the others in MAAS`);
  }
  // A deleting MaasMachine releases what it adopted (deleting.ts); any other goes on from allocated.
  if (t.phase === 'pending') t.transition('allocated');
}
