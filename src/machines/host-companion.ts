import { BMH_KIND } from '../api/index.ts';
import type { CustomResource } from '../api/crd/index.ts';
import { FIRMWARE_BUCKET, FIRMWARE_STATUS_BUCKET } from './buckets.ts';
import { defineCompanionKind, sameNameAsHost, type CompanionKindDefinition } from './companion.ts';
import { objectKey } from './dependents.ts';

/**
 * A BareMetalHost companion named like its host (`<namespace>/<host>`): kept in the firmware
 * buckets, on its host's shard, by the host's actor. Only what differs is given: the kind, its
 * CRD, and whether a change to it wakes the host.
 */
export function hostNamedCompanion(kind: string, resource: CustomResource, wakesHost: boolean): CompanionKindDefinition {
  return defineCompanionKind({
    kind,
    resources: [resource],
    buckets: { spec: FIRMWARE_BUCKET, status: FIRMWARE_STATUS_BUCKET },
    hostKind: BMH_KIND,
    binding: 'host',
    shardKey: objectKey,
    hostsOf: sameNameAsHost,
    wakesHost,
  });
}
