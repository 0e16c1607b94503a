import { MACHINE_DEPLOYED_REASONS as R } from '../../api/index.ts';
import { agentNameOf, lookForEarlierAllocation } from './adopt.ts';
import { imageNamed } from './deploy-options.ts';
import { gatesOpen } from './gates.ts';
import { releaseOnRequest } from './release.ts';
import type { Turn } from './turn.ts';
import { failureDomainOf } from './world.ts';

// No MAAS machine yet: once the Cluster API gates are open, adopt one an earlier owner allocated
// for this MaasMachine (adopt.ts); else, with a slot held, allocate one with the spec's
// constraints (reference/capmaas.md §2.4 step 1), tagged with our agent name.
export function pending(t: Turn): boolean {
  if (releaseOnRequest(t)) return false;
  if (!gatesOpen(t)) return false;
  startedUnlessFailed(t);
  // Looked for before the slot is asked for: a machine found already Deploying takes its slot
  // without waiting (deploying counts against the MAAS limit whatever the queue says).
  if (!t.s.noEarlierAllocation) {
    lookForEarlierAllocation(t);
    return false;
  }
  const image = imageNamed(t);
  if (!image) return false;
  if (!t.ensureSlot('deploy')) return false;
  const spec = t.s.object.spec;
  const zone = failureDomainOf(t.s.object, t.s.world);
  // Unless this allocate answers with a machine, look again before the next: a timed-out
  // allocate may have reached MAAS.
  t.s.noEarlierAllocation = false;
  t.call({
    op: 'allocate', agentName: agentNameOf(t.s.object), cpuCount: spec.minCPU, memMb: spec.minMemory,
    ...(zone ? { zone } : {}), ...(spec.resourcePool ? { pool: spec.resourcePool } : {}), ...(spec.tags?.length ? { tags: spec.tags } : {}),
    image,
  });
  return false;
}

// CAPMAAS marks the deploy started unless the last attempt failed, so the failure stays readable.
export function startedUnlessFailed(t: Turn): void {
  const current = t.s.status.conditions?.find((c) => c.type === 'MachineDeployed');
  if (current?.reason === R.MachineDeployFailed) return;
  t.setStatus({ ready: false });
  t.deployed('False', R.MachineDeployStarted);
}
