import { isCapiPaused, isClusterInfrastructureProvisioned, isControlPlaneMachine } from '../../api/index.ts';
import type { MaasMachine } from '../../api/index.ts';
import type { MaasMachineWorld } from './types.ts';

// The Cluster API contract a MaasMachine keeps (reference/capmaas.md §2.3 steps 1-4), read from the
// typed objects the actor resolved.

/** Why all work stops, or null: the Cluster is paused, or it or the MaasMachine carries the paused annotation. */
export function pausedBy(object: MaasMachine, world: MaasMachineWorld): string | null {
  const cluster = world.cluster;
  if (cluster?.spec?.paused === true) return `Cluster ${cluster.metadata.name} is paused (spec.paused)`;
  if (cluster && isCapiPaused(cluster, cluster)) return `Cluster ${cluster.metadata.name} has the cluster.x-k8s.io/paused annotation`;
  if (object.metadata.annotations?.['cluster.x-k8s.io/paused'] !== undefined) return `MaasMachine ${object.metadata.name} has the cluster.x-k8s.io/paused annotation`;
  return null;
}

/** The owner Machine and its Cluster exist (CAPMAAS does nothing before). */
export function missingOwner(object: MaasMachine, world: MaasMachineWorld): string | null {
  if (!world.machine) return `waiting for the Cluster API Machine that owns MaasMachine ${object.metadata.name}`;
  if (!world.cluster) return `waiting for Cluster ${world.machine.spec.clusterName}`;
  return null;
}

/**
 * The cluster's infrastructure is provisioned: the Cluster says so (Cluster API copies it there
 * from the MaasCluster), or its MaasCluster itself does, which is the same fact at its source and
 * holds also where no Cluster API controller runs (the embedded node).
 */
export function infrastructureReady(world: MaasMachineWorld): boolean {
  if (!world.cluster) return false;
  if (isClusterInfrastructureProvisioned(world.cluster)) return true;
  const st = world.maasCluster?.status;
  return st?.initialization?.provisioned === true || st?.ready === true;
}

export function isControlPlane(object: MaasMachine, world: MaasMachineWorld): boolean {
  return isControlPlaneMachine(object) || (world.machine !== null && isControlPlaneMachine(world.machine));
}

/** CAPMAAS: the MaasMachine's zone, else the Machine's. */
export function failureDomainOf(object: MaasMachine, world: MaasMachineWorld): string | undefined {
  return object.spec.failureDomain ?? world.machine?.spec.failureDomain;
}

/** The control-plane DNS name the MaasCluster keeps, once it has one. */
export function dnsNameOf(world: MaasMachineWorld): string | undefined {
  return world.maasCluster?.status?.network?.dnsName ?? world.maasCluster?.spec.controlPlaneEndpoint?.host;
}
