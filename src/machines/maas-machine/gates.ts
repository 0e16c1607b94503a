import { MACHINE_DEPLOYED_REASONS as R } from '../../api/index.ts';
import type { Turn } from './turn.ts';
import { infrastructureReady } from './world.ts';

/**
 * Cluster API's order (reference/capmaas.md §2.3 steps 3-4): nothing is allocated or deployed
 * before the cluster's infrastructure is provisioned and the bootstrap data exists. Says which
 * gate is closed in MachineDeployed and gives back a slot asked for meanwhile.
 */
export function gatesOpen(t: Turn): boolean {
  const { world } = t.s;
  if (!infrastructureReady(world)) {
    close(t, R.WaitingForClusterInfrastructure, `Cluster ${world.cluster?.metadata.name ?? ''} has no provisioned infrastructure yet`);
    return false;
  }
  if (!world.bootstrapDataReady) {
    const secret = world.machine?.spec.bootstrap.dataSecretName;
    close(t, R.WaitingForBootstrapData, secret ? `bootstrap Secret ${secret} has no value yet` : `Machine ${world.machine?.metadata.name ?? ''} names no bootstrap data yet`);
    return false;
  }
  return true;
}

function close(t: Turn, reason: string, message: string): void {
  t.setStatus({ ready: false });
  t.deployed('False', reason, message);
  if (t.s.slot.phase !== 'none') t.releaseSlot();
}
