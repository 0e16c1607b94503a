import { isControlPlaneMachine, MAAS_RUNNING_STATES } from '../../api/index.ts';
import type { MaasMachine } from '../../api/index.ts';
import type { ControlPlaneMember } from './dns-plan.ts';

// The cluster side's "running" is CAPMAAS's (§2.2 step 5): powered on and Deploying or Deployed.
// A failed machine is never running, whatever MAAS last said of it.
export function controlPlaneMembers(machines: readonly MaasMachine[]): ControlPlaneMember[] {
  return machines.filter((m) => isControlPlaneMachine(m)).map((m): ControlPlaneMember => {
    const st = m.status;
    const systemId = m.spec.systemID ?? m.spec.providerID?.split('/').pop();
    return {
      key: `${m.metadata.namespace}/${m.metadata.name}`,
      name: m.metadata.name,
      ...(systemId ? { systemId } : {}),
      ips: (st?.addresses ?? []).filter((a) => a.type === 'ExternalIP').map((a) => a.address),
      running: st?.machinePowered === true && MAAS_RUNNING_STATES.has(st.machineState ?? '') && !st.failureReason,
      deleting: m.metadata.deletionTimestamp !== undefined,
    };
  });
}
