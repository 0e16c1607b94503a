import { CLUSTER_LABEL } from '../api/index.ts';
import type { KindObject } from './dependents.ts';

// A Cluster API cluster is the MAAS kinds' unit of sharding: its MaasCluster, MaasMachines,
// Machines and Cluster all route by `namespace/cluster`, so one owner keeps the cluster's DNS
// record and the delete order of its control plane (a machine leaves the record before it is
// released) without coordinating across nodes. Pure: the object in, its key out.

/** The Cluster a MaasCluster belongs to: owner reference, else cluster-name label, else its own name. */
export function clusterNameOf(mc: Pick<KindObject, 'metadata'>): string {
  const owner = mc.metadata.ownerReferences?.find((r) => r.kind === 'Cluster');
  return owner?.name ?? mc.metadata.labels?.[CLUSTER_LABEL] ?? mc.metadata.name;
}

/** The cluster a Cluster API Machine names (spec.clusterName), or undefined. */
export function machineClusterName(machine: KindObject | undefined): string | undefined {
  const name = (machine?.spec as { clusterName?: unknown } | undefined)?.clusterName;
  return typeof name === 'string' ? name : undefined;
}

/** `namespace/cluster` of an object of the Cluster API side: the shard key of its cluster. */
export function clusterKeyOf(kind: string, object: KindObject): string {
  const ns = object.metadata.namespace;
  switch (kind) {
    case 'Cluster': return `${ns}/${object.metadata.name}`;
    case 'MaasCluster': return `${ns}/${clusterNameOf(object)}`;
    case 'Machine': return `${ns}/${machineClusterName(object) ?? object.metadata.labels?.[CLUSTER_LABEL] ?? object.metadata.name}`;
    default: return `${ns}/${object.metadata.labels?.[CLUSTER_LABEL] ?? object.metadata.name}`;
  }
}
