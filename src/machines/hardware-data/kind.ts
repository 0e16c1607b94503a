import { BMH_KIND, HARDWARE_DATA_RESOURCE } from '../../api/index.ts';
import { FIRMWARE_BUCKET, FIRMWARE_STATUS_BUCKET } from '../buckets.ts';
import { defineCompanionKind, sameNameAsHost } from '../companion.ts';
import { objectKey } from '../dependents.ts';

/**
 * HardwareData `<namespace>/<host>`: what inspection found (spec.hardware), written by the host's
 * actor as BMO's inspection does (baremetalhost_controller.go actionInspecting), and deleted with
 * the host. Nobody else writes it, so its changes wake nobody.
 */
export const HARDWARE_DATA_KIND_DEFINITION = defineCompanionKind({
  kind: 'HardwareData',
  resources: [HARDWARE_DATA_RESOURCE],
  buckets: { spec: FIRMWARE_BUCKET, status: FIRMWARE_STATUS_BUCKET },
  hostKind: BMH_KIND,
  binding: 'host',
  shardKey: objectKey,
  hostsOf: sameNameAsHost,
  wakesHost: false,
});
