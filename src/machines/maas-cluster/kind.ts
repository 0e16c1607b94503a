import { MAAS_CLUSTER_KIND, MaasCluster } from '../../api/index.ts';
import { MAAS_RESOURCE_BASE } from '../../api/crd/index.ts';
import { OBJECT_STATUS_BUCKET, OBJECTS_BUCKET } from '../buckets.ts';
import { clusterKeyOf } from '../cluster-key.ts';
import { defineKind } from '../kind.ts';
import { MAAS_CLUSTER_DEPENDENTS } from './dependents.ts';
import { maasClusterLogic } from './logic.ts';

/** MaasCluster: the MAAS side of a Cluster API Cluster (its DNS record and failure domains). */
export const MAAS_CLUSTER_KIND_DEFINITION = defineKind({
  kind: MAAS_CLUSTER_KIND,
  resources: [{
    ...MAAS_RESOURCE_BASE,
    kind: MAAS_CLUSTER_KIND,
    plural: 'maasclusters',
    singular: 'maascluster',
    description: 'MaasCluster is the MAAS side of a Cluster API Cluster: its DNS record and failure domains, as CAPMAAS defines it.',
    schema: MaasCluster,
  }],
  buckets: { spec: OBJECTS_BUCKET, status: OBJECT_STATUS_BUCKET },
  // Driven by its Cluster (pause it there); nothing to send it directly.
  commands: [],
  noCommandsReason: 'it follows its Cluster: pause that',
  logic: maasClusterLogic,
  shardKey: (mc) => clusterKeyOf(MAAS_CLUSTER_KIND, mc),
  dependents: MAAS_CLUSTER_DEPENDENTS,
  binding: 'maas',
});
