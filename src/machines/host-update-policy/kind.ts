import { BMH_KIND } from '../../api/index.ts';
import { FIRMWARE_BUCKET, FIRMWARE_STATUS_BUCKET } from '../buckets.ts';
import { defineCompanionKind, sameNameAsHost } from '../companion.ts';
import { companionCrd } from '../companion-crd.ts';
import { objectKey } from '../dependents.ts';

/**
 * HostUpdatePolicy `<namespace>/<host>`: whether firmware settings and updates may be applied to
 * the provisioned host on its next reboot (spec.firmwareSettings/firmwareUpdates 'onReboot').
 * Only users write it; a change wakes the host.
 */
export const HOST_UPDATE_POLICY_KIND_DEFINITION = defineCompanionKind({
  kind: 'HostUpdatePolicy',
  resources: [companionCrd({
    kind: 'HostUpdatePolicy', plural: 'hostupdatepolicies', singular: 'hostupdatepolicy', statusSubresource: false,
    description: 'HostUpdatePolicy says how a provisioned BareMetalHost takes firmware changes, as Metal3\'s baremetal-operator defines it.',
  })],
  buckets: { spec: FIRMWARE_BUCKET, status: FIRMWARE_STATUS_BUCKET },
  hostKind: BMH_KIND,
  binding: 'host',
  shardKey: objectKey,
  hostsOf: sameNameAsHost,
  wakesHost: true,
});
