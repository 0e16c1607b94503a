import type { ApiVersion } from './version.ts';
import { compareVersions } from './version.ts';

// The Ironic API features metalfleet may use, each with the microversion that introduced it
// (ironic/api/controllers/v1/versions.py). `supports()` answers against the negotiated version.
export const FEATURES = {
  'configdrive-dict': 56, // configdrive as a JSON object, built into an ISO by Ironic
  'configdrive-vendor-data': 59,
  'network-data': 66, // node.network_data
  'deploy-steps': 69, // deploy_steps with target "active"
  'clean-disable-ramdisk': 70, // disable_ramdisk with target "clean"
  'deploy-undeploy-verbs': 73,
  'bios-registry': 74, // GET /v1/nodes/{node}/bios?detail=True: registry fields of each setting
  'boot-mode-fields': 75, // node.boot_mode, node.secure_boot
  'node-history': 78,
  inventory: 81, // GET /v1/nodes/{node}/inventory
  shards: 82,
  'inspection-callback': 84, // POST /v1/continue_inspection (agent inspection)
  unhold: 85,
  'firmware-interface': 86, // node.firmware_interface, GET /v1/nodes/{node}/firmware, firmware.update steps
  service: 87, // target "service" with service_steps
  'vmedia-attach': 89, // POST/DELETE /v1/nodes/{node}/vmedia
  'vmedia-get': 93, // GET /v1/nodes/{node}/vmedia
  // Not a microversion of its own: firmware.update became a service step in Ironic 26.1
  // (drivers/modules/redfish/firmware.py), the release that offers 1.93.
  'firmware-service-step': 93,
  'port-node-name': 94, // POST /v1/ports with node_name
  'disable-power-off': 95, // node.disable_power_off
  // Not a microversion of its own: oci:// image sources (and instance_info image_pull_secret)
  // came with Ironic 29.0 (2025.1), the release that offers 1.96.
  'oci-images': 96,
  // Not a microversion of its own: `service failed` --abort--> `active` came with Ironic 32.0
  // (commit "Fix the ability to escape service fail"), the release that offers 1.101; 23.0 to
  // 31.x answer 400 to it.
  'service-fail-abort': 101,
  'instance-name': 104,
  'service-disable-ramdisk': 108,
  health: 109, // node.health
  'deploy-abort': 110, // target "abort" in wait call-back
} as const satisfies Record<string, number>;

export type Feature = keyof typeof FEATURES;

/** The microversion (1.x) that introduced `feature`. */
export function featureVersion(feature: Feature): ApiVersion {
  const minor = FEATURES[feature];
  return { major: 1, minor, text: `1.${minor}` };
}

export function versionSupports(version: ApiVersion | null, feature: Feature): boolean {
  return version !== null && compareVersions(version, featureVersion(feature)) >= 0;
}

/** What a client speaks with one Ironic: the negotiated version and the server's own maximum. */
export interface Negotiated {
  readonly version: ApiVersion;
  readonly serverMax: ApiVersion;
}

// Node fields (POST /v1/nodes, PATCH /v1/nodes/{node}) newer than the 1.81 baseline. Ironic
// before them answers 400 for the whole request ("Unknown attribute"), so none may go out unasked.
export const NODE_FIELD_FEATURES: Readonly<Record<string, Feature>> = {
  firmware_interface: 'firmware-interface',
  disable_power_off: 'disable-power-off',
  shard: 'shards',
  instance_name: 'instance-name',
};

/**
 * Why `what` cannot be used with this Ironic, or null when it can: "<what> needs Ironic API 1.95
 * or later; this Ironic offers up to 1.82". A server that offers it while the client's maxVersion
 * holds it back says so instead.
 */
export function featureShortfall(what: string, feature: Feature, n: Negotiated): string | null {
  if (versionSupports(n.version, feature)) return null;
  const need = featureVersion(feature).text;
  if (compareVersions(n.serverMax, featureVersion(feature)) >= 0) {
    return `${what} needs Ironic API ${need} or later; this Ironic offers up to ${n.serverMax.text}, but the client's maxVersion holds it at ${n.version.text}`;
  }
  return `${what} needs Ironic API ${need} or later; this Ironic offers up to ${n.serverMax.text}`;
}
