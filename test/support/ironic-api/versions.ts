// Microversions as Ironic parses, compares and checks them, and the minor versions this server
// knows features by (ironic/api/controllers/v1/versions.py, MINOR_* constants).

export interface Microversion {
  readonly major: number;
  readonly minor: number;
}

export const MIN_VERSION: Microversion = { major: 1, minor: 1 };

/** The minor version that introduced each feature the server speaks (versions.py). */
export const SINCE = {
  inventory: 81, // MINOR_81_NODE_INVENTORY
  shard: 82, // MINOR_82_NODE_SHARD
  parentNode: 83, // MINOR_83_PARENT_CHILD_NODES
  continueInspection: 84,
  unhold: 85, // MINOR_85_UNHOLD_VERB
  firmware: 86, // MINOR_86_FIRMWARE_INTERFACE
  service: 87, // MINOR_87_SERVICE
  serviceFirmwareUpdate: 93, // 26.1 (API 1.93): redfish firmware.update gains @service_step
  disablePowerOff: 95, // MINOR_95_DISABLE_POWER_OFF
  serviceFailDelete: 96, // 29.0 (API 1.96): state_machine adds SERVICEFAIL --delete--> DELETING
  biosRegistry: 74, // MINOR_74_BIOS_REGISTRY: GET .../bios?detail=True
} as const;

export function text(v: Microversion): string {
  return `${v.major}.${v.minor}`;
}

export function compare(a: Microversion, b: Microversion): number {
  return a.major !== b.major ? a.major - b.major : a.minor - b.minor;
}

/** "1.87" → {1, 87}; anything else null. Throws nothing: the caller words the refusal. */
export function parseVersion(s: string): Microversion | null {
  const m = /^(\d+)\.(\d+)$/.exec(s.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : null;
}

export type Negotiated = { ok: true; version: Microversion } | { ok: false; description: string; withRangeHeaders: boolean };

/**
 * The version a request speaks, or why it is refused with 406. Follows
 * ironic/api/controllers/base.py Version.parse_headers (no header: the minimum; "latest": the
 * maximum; not two integers: "Invalid value for ... header", sent without the range headers) and
 * ironic/api/controllers/v1/__init__.py Controller._check_version (major other than 1: "Mutually
 * exclusive versions requested"; minor outside [min, max]: "... minor version is not supported").
 */
export function negotiateRequest(header: string | undefined, max: Microversion): Negotiated {
  const raw = header ?? text(MIN_VERSION);
  const parsed = raw.toLowerCase() === 'latest' ? max : parseVersion(raw);
  const range = `The supported version range is: [${text(MIN_VERSION)}, ${text(max)}].`;
  if (parsed === null) return { ok: false, description: 'Invalid value for X-OpenStack-Ironic-API-Version header', withRangeHeaders: false };
  if (parsed.major !== 1) {
    return { ok: false, description: `Mutually exclusive versions requested. Version ${text(parsed)} requested but not supported by this service. ${range}`, withRangeHeaders: true };
  }
  if (compare(parsed, MIN_VERSION) < 0 || compare(parsed, max) > 0) {
    return { ok: false, description: `Version ${text(parsed)} was requested but the minor version is not supported by this service. ${range}`, withRangeHeaders: true };
  }
  return { ok: true, version: parsed };
}

/** Whether `v` (a request's version, or the server's maximum) has the feature of minor `since`. */
export function allows(v: Microversion, since: number): boolean {
  return v.major === 1 && v.minor >= since;
}
