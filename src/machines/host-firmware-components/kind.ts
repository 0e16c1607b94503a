import { BMH_KIND, HOST_FIRMWARE_COMPONENTS_RESOURCE } from '../../api/index.ts';
import { FIRMWARE_BUCKET, FIRMWARE_STATUS_BUCKET } from '../buckets.ts';
import { defineCompanionKind, sameNameAsHost } from '../companion.ts';
import { objectKey } from '../dependents.ts';

/**
 * HostFirmwareComponents `<namespace>/<host>`: firmware updates a user asks for (spec.updates)
 * and the components the backend reports (status.components, written by the host's actor). A
 * change of its spec wakes the host.
 */
export const HOST_FIRMWARE_COMPONENTS_KIND_DEFINITION = defineCompanionKind({
  kind: 'HostFirmwareComponents',
  resources: [HOST_FIRMWARE_COMPONENTS_RESOURCE],
  buckets: { spec: FIRMWARE_BUCKET, status: FIRMWARE_STATUS_BUCKET },
  hostKind: BMH_KIND,
  binding: 'host',
  shardKey: objectKey,
  hostsOf: sameNameAsHost,
  wakesHost: true,
});
