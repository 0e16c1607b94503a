// The KV buckets kinds keep their objects in. Each kind names the ones it uses (kind.ts); the
// stores open them by these names (adapters/store), so a bucket is named once.

/** BareMetalHost spec and metadata (what a user applies). */
export const HOSTS_BUCKET = 'mf-hosts';
/** BareMetalHost status and the shard fence of its last writer (what the controller writes). */
export const HOST_STATUS_BUCKET = 'mf-status';
/** The MAAS kinds and the Cluster API objects they read (Machine, Cluster): spec and metadata. */
export const OBJECTS_BUCKET = 'mf-objects';
/** Their status and the shard fence of its last writer, as mf-status is for hosts. */
export const OBJECT_STATUS_BUCKET = 'mf-object-status';
/**
 * The BareMetalHost's companion kinds (HardwareData, FirmwareSchema, HostFirmwareSettings,
 * HostFirmwareComponents, HostUpdatePolicy): spec and metadata, keys prefixed by kind as the MAAS
 * kinds share theirs. Apart from mf-hosts: a node that watches every host's spec is not woken by
 * inventories and BIOS registries.
 */
export const FIRMWARE_BUCKET = 'mf-firmware';
/** Their status and the shard fence of its last writer. */
export const FIRMWARE_STATUS_BUCKET = 'mf-firmware-status';
