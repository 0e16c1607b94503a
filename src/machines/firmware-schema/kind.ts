import { BMH_KIND, FIRMWARE_SCHEMA_RESOURCE } from '../../api/index.ts';
import { FIRMWARE_BUCKET, FIRMWARE_STATUS_BUCKET } from '../buckets.ts';
import { defineCompanionKind } from '../companion.ts';
import { objectKey, type KindObject } from '../dependents.ts';

/**
 * FirmwareSchema `<namespace>/schema-<hash>`: a BIOS registry, shared by the hosts of one vendor
 * and model (BMO's hostfirmwaresettings_controller.go getOrCreateFirmwareSchema): named by a hash
 * of its contents, owned by each HostFirmwareSettings that uses it.
 *
 * Sharded by its own key, not a host's: it is shared by hosts on any shard, and needs no single
 * owner, because nothing in it ever changes once created (its name is its contents): a host's
 * actor creates it if absent and adds its HostFirmwareSettings as an owner, both writes that two
 * owners may race on harmlessly, so they go unfenced. It wakes nobody: hosts read it when their
 * settings are checked.
 */
export const FIRMWARE_SCHEMA_KIND_DEFINITION = defineCompanionKind({
  kind: 'FirmwareSchema',
  resources: [FIRMWARE_SCHEMA_RESOURCE],
  buckets: { spec: FIRMWARE_BUCKET, status: FIRMWARE_STATUS_BUCKET },
  hostKind: BMH_KIND,
  binding: 'host',
  shardKey: objectKey,
  hostsOf: schemaUsers,
  wakesHost: false,
});

/** The hosts using a schema: those of the HostFirmwareSettings owning it (named as their host). */
function schemaUsers(object: KindObject): readonly string[] {
  return (object.metadata.ownerReferences ?? []).filter((r) => r.kind === 'HostFirmwareSettings').map((r) => `${object.metadata.namespace}/${r.name}`);
}
