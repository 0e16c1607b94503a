import { BMH_KIND, HOST_FIRMWARE_SETTINGS_RESOURCE } from '../../api/index.ts';
import { FIRMWARE_BUCKET, FIRMWARE_STATUS_BUCKET } from '../buckets.ts';
import { defineCompanionKind, sameNameAsHost } from '../companion.ts';
import { objectKey } from '../dependents.ts';

/**
 * HostFirmwareSettings `<namespace>/<host>`: the BIOS settings a user wants (spec.settings) and
 * those the backend reports (status, written by the host's actor on a firmware read, as BMO's
 * hostfirmwaresettings_controller.go does). A change of its spec wakes the host.
 */
export const HOST_FIRMWARE_SETTINGS_KIND_DEFINITION = defineCompanionKind({
  kind: 'HostFirmwareSettings',
  resources: [HOST_FIRMWARE_SETTINGS_RESOURCE],
  buckets: { spec: FIRMWARE_BUCKET, status: FIRMWARE_STATUS_BUCKET },
  hostKind: BMH_KIND,
  binding: 'host',
  shardKey: objectKey,
  hostsOf: sameNameAsHost,
  wakesHost: true,
});
