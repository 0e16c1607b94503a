import { BMH_KIND, HOST_UPDATE_POLICY_RESOURCE } from '../../api/index.ts';
import { FIRMWARE_BUCKET, FIRMWARE_STATUS_BUCKET } from '../buckets.ts';
import { defineCompanionKind, sameNameAsHost } from '../companion.ts';
import { objectKey } from '../dependents.ts';

/**
 * HostUpdatePolicy `<namespace>/<host>`: whether firmware settings and updates may be applied to
 * the provisioned host on its next reboot (spec.firmwareSettings/firmwareUpdates 'onReboot').
 * Only users write it; a change wakes the host.
 */
export const HOST_UPDATE_POLICY_KIND_DEFINITION = defineCompanionKind({
  kind: 'HostUpdatePolicy',
  resources: [HOST_UPDATE_POLICY_RESOURCE],
  buckets: { spec: FIRMWARE_BUCKET, status: FIRMWARE_STATUS_BUCKET },
  hostKind: BMH_KIND,
  binding: 'host',
  shardKey: objectKey,
  hostsOf: sameNameAsHost,
  wakesHost: true,
});
