import { BMH_KIND, FIRMWARE_SCHEMA_RESOURCE } from '../../api/index.ts';
import { FIRMWARE_BUCKET, FIRMWARE_STATUS_BUCKET } from '../buckets.ts';
import { defineCompanionKind } from '../companion.ts';
import { objectKey } from '../dependents.ts';

/**
 * FirmwareSchema `<namespace>/schema-<hash>`: a BIOS registry, shared by the hosts of one vendor
 * and model (BMO's hostfirmwaresettings_controller.go getOrCreateFirmwareSchema): named by a hash
 * of its contents. A HostFirmwareSettings names the one it follows in status.schema.
 *
 * Unlike BMO's, it lists no owners. BMO adds every HostFirmwareSettings using it as an owner
 * reference: a list that grows with the fleet, rewritten whole on every host's first firmware read
 * (quadratic: 10,000 hosts of one model took 574 s instead of 6 in the lifecycle bench) and, at
 * about 10,000 hosts of one model, past the API server's 1.5 MiB object limit. There are as many
 * schemas as hardware models and registry versions, so one left when its last host is gone costs
 * little; a host that finds none creates it again.
 *
 * Sharded by its own key, not a host's: it is shared by hosts on any shard, and needs no single
 * owner, because nothing in it ever changes once created (its name is its contents): a host's
 * actor creates it if absent, a write two owners may race on harmlessly, so it goes unfenced.
 * It wakes nobody: hosts read it when their settings are checked.
 */
export const FIRMWARE_SCHEMA_KIND_DEFINITION = defineCompanionKind({
  kind: 'FirmwareSchema',
  resources: [FIRMWARE_SCHEMA_RESOURCE],
  buckets: { spec: FIRMWARE_BUCKET, status: FIRMWARE_STATUS_BUCKET },
  hostKind: BMH_KIND,
  binding: 'host',
  shardKey: objectKey,
  // Its users are the HostFirmwareSettings naming it in status; it wakes none of them.
  hostsOf: () => [],
  wakesHost: false,
});

