import { MAAS_MACHINE_KIND, MAAS_MACHINE_TEMPLATE_KIND, MaasMachine, MaasMachineTemplate } from '../../api/index.ts';
import { MAAS_RESOURCE_BASE } from '../../api/crd/index.ts';
import { OBJECT_STATUS_BUCKET, OBJECTS_BUCKET } from '../buckets.ts';
import { clusterKeyOf } from '../cluster-key.ts';
import { defineKind } from '../kind.ts';
import { MAAS_MACHINE_COMMAND_INTENT, MAAS_MACHINE_COMMANDS } from './command-intent.ts';
import { MAAS_MACHINE_DEPENDENTS } from './dependents.ts';
import { maasMachineLogic } from './logic.ts';

/** MaasMachine: CAPMAAS's infrastructure machine, allocated and deployed through MAAS. */
export const MAAS_MACHINE_KIND_DEFINITION = defineKind({
  kind: MAAS_MACHINE_KIND,
  // CAPMAAS's CRDs declare no printer columns.
  resources: [{
    ...MAAS_RESOURCE_BASE,
    kind: MAAS_MACHINE_KIND,
    plural: 'maasmachines',
    singular: 'maasmachine',
    description: 'MaasMachine is a machine allocated and deployed through MAAS for a Cluster API Machine, as CAPMAAS defines it.',
    schema: MaasMachine,
  }, {
    ...MAAS_RESOURCE_BASE,
    kind: MAAS_MACHINE_TEMPLATE_KIND,
    plural: 'maasmachinetemplates',
    singular: 'maasmachinetemplate',
    description: 'MaasMachineTemplate is the MaasMachine spec Cluster API copies into each machine it creates, as CAPMAAS defines it.',
    schema: MaasMachineTemplate,
  }],
  buckets: { spec: OBJECTS_BUCKET, status: OBJECT_STATUS_BUCKET },
  // Recorded as annotations on the MaasMachine (intents.ts), as durable as `kubectl annotate`.
  commands: MAAS_MACHINE_COMMANDS,
  commandIntent: MAAS_MACHINE_COMMAND_INTENT,
  logic: maasMachineLogic,
  // With its cluster (cluster-key.ts): its DNS record and control-plane delete order have one owner.
  shardKey: (mm) => clusterKeyOf(MAAS_MACHINE_KIND, mm),
  dependents: MAAS_MACHINE_DEPENDENTS,
  binding: 'maas',
});
