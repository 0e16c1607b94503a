import { CLUSTER_LABEL } from '../api/index.ts';
import { clusterNameOf, machineClusterName } from './cluster-key.ts';
import type { KindObject, LinkValues } from './dependents.ts';
import { inNamespace, objectKey } from './dependents.ts';

// How Cluster API objects name each other, as link values the kinds' dependents declarations
// join on (machines/dependents.ts). Every value is `namespace/name` of the object it points at.

/** An object by its own `namespace/name`. */
export const itself: LinkValues = (o) => [objectKey(o)];

/** A Machine by the object its spec.infrastructureRef names (its MaasMachine). */
export const machineInfrastructure: LinkValues = (m) => inNamespace(m, specRef(m, 'infrastructureRef')?.name);

/** A Machine by its bootstrap data Secret (spec.bootstrap.dataSecretName). */
export const machineBootstrapSecret: LinkValues = (m) => {
  const bootstrap = (m.spec as { bootstrap?: { dataSecretName?: unknown } } | undefined)?.bootstrap;
  return inNamespace(m, bootstrap?.dataSecretName);
};

/** A Machine by the cluster it names (spec.clusterName). */
export const machineCluster: LinkValues = (m) => inNamespace(m, machineClusterName(m));

/** An infrastructure object by the Machine its owner reference names. */
export const ownerMachine: LinkValues = (o) => inNamespace(o, o.metadata.ownerReferences?.find((r) => r.kind === 'Machine')?.name);

/** An object by its cluster-name label. */
export const clusterLabel: LinkValues = (o) => inNamespace(o, o.metadata.labels?.[CLUSTER_LABEL]);

/** A MaasCluster by its Cluster (owner reference, label, else its own name). */
export const maasClusterCluster: LinkValues = (mc) => inNamespace(mc, clusterNameOf(mc));

/** A Cluster by the MaasCluster its spec.infrastructureRef names. */
export const clusterInfrastructure: LinkValues = (c) => {
  const ref = specRef(c, 'infrastructureRef');
  return ref?.kind === 'MaasCluster' ? inNamespace(c, ref.name) : [];
};

function specRef(o: KindObject, field: string): { kind?: unknown; name?: unknown } | undefined {
  const ref = (o.spec as Record<string, unknown> | undefined)?.[field];
  return typeof ref === 'object' && ref !== null ? ref as { kind?: unknown; name?: unknown } : undefined;
}
