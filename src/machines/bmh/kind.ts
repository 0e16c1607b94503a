import { BMH_API_VERSION, BMH_KIND, BareMetalHost } from '../../api/index.ts';
import { PART_OF_LABEL } from '../../api/crd/index.ts';
import { HOST_STATUS_BUCKET, HOSTS_BUCKET } from '../buckets.ts';
import { objectKey } from '../dependents.ts';
import { defineKind } from '../kind.ts';
import { BMH_COMMAND_INTENT } from './command-intent.ts';
import { bmhLogic } from './logic.ts';

/** BareMetalHost: the Metal3 kind, driven through Ironic (or a plugin provisioner). */
export const BMH_KIND_DEFINITION = defineKind({
  kind: BMH_KIND,
  resources: [{
    apiVersion: BMH_API_VERSION,
    kind: BMH_KIND,
    plural: 'baremetalhosts',
    singular: 'baremetalhost',
    shortNames: ['bmh', 'bmhost'],
    labels: PART_OF_LABEL,
    description: 'BareMetalHost is a physical server driven through Ironic, as Metal3\'s baremetal-operator defines it.',
    schema: BareMetalHost,
    statusSubresource: true,
    // baremetal-operator's columns, priorities and descriptions as its CRD has them.
    printerColumns: [
      { name: 'Status', type: 'string', jsonPath: '.status.operationalStatus', description: 'Operational status', priority: 1 },
      { name: 'State', type: 'string', jsonPath: '.status.provisioning.state', description: 'Provisioning status' },
      { name: 'Consumer', type: 'string', jsonPath: '.spec.consumerRef.name', description: 'Consumer using this host' },
      { name: 'BMC', type: 'string', jsonPath: '.spec.bmc.address', description: 'Address of management controller', priority: 1 },
      { name: 'Online', type: 'string', jsonPath: '.spec.online', description: 'Whether the host is online or not' },
      { name: 'Error', type: 'string', jsonPath: '.status.errorType', description: 'Type of the most recent error' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Time duration since creation of BaremetalHost' },
    ],
  }],
  // BMO's companion kinds (HardwareData, FirmwareSchema, HostFirmwareSettings,
  // HostFirmwareComponents, HostUpdatePolicy) are kinds of their own: machines/companion.ts.
  // Spec and status apart, as the API server keeps them: a user's apply and the controller's
  // status write never race on one revision.
  buckets: { spec: HOSTS_BUCKET, status: HOST_STATUS_BUCKET },
  commands: ['powerOn', 'powerOff', 'reboot', 'inspect', 'reprovision', 'service', 'pause', 'unpause', 'detach', 'attach', 'delete'],
  // As spec.online or an annotation (command-intent.ts), or a deletion request.
  commandIntent: BMH_COMMAND_INTENT,
  logic: bmhLogic,
  // One host, one actor, wherever its shard goes; its Secrets are read by its own actor.
  shardKey: objectKey,
  dependents: {},
  binding: 'host',
});
