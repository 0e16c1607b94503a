// Ironic microversions ("1.82"): parsing, ordering and the negotiation rule.

export interface ApiVersion {
  readonly major: number;
  readonly minor: number;
  /** As sent in `X-OpenStack-Ironic-API-Version`, e.g. "1.82". */
  readonly text: string;
}

/** The oldest API metalfleet drives: 1.81 adds `GET /v1/nodes/{node}/inventory`. */
export const BASELINE_VERSION: ApiVersion = apiVersion(1, 81);

/** The newest API metalfleet knows a feature of (1.110: abort in `wait call-back`). */
export const NEWEST_KNOWN_VERSION: ApiVersion = apiVersion(1, 110);

export function apiVersion(major: number, minor: number): ApiVersion {
  return { major, minor, text: `${major}.${minor}` };
}

/** "1.82" → { major: 1, minor: 82 }; null for anything else ("latest", "v1", "1.x"). */
export function parseApiVersion(text: string): ApiVersion | null {
  const m = /^\s*(\d+)\.(\d+)\s*$/.exec(text);
  if (!m) return null;
  return apiVersion(Number(m[1]), Number(m[2]));
}

export function compareVersions(a: ApiVersion, b: ApiVersion): number {
  return a.major !== b.major ? a.major - b.major : a.minor - b.minor;
}

export function minVersion(a: ApiVersion, b: ApiVersion): ApiVersion {
  return compareVersions(a, b) <= 0 ? a : b;
}

/** What the server offers, as read from `GET /` and `GET /v1/`. */
export interface ServerVersions {
  readonly min: ApiVersion;
  readonly max: ApiVersion;
}

export type Negotiation = { ok: true; version: ApiVersion } | { ok: false; reason: string };

/**
 * The version to speak: the lower of the server's maximum and ours. Refused when that is below
 * the baseline, or when the server's minimum is above it. A refusal reads after "Ironic at URL ".
 */
export function negotiate(server: ServerVersions, ours: ApiVersion, baseline: ApiVersion = BASELINE_VERSION): Negotiation {
  const chosen = minVersion(server.max, ours);
  if (compareVersions(server.max, baseline) < 0) {
    return { ok: false, reason: `supports API versions up to ${server.max.text}, but metalfleet needs ${baseline.text} or newer (node inventory): upgrade Ironic` };
  }
  if (compareVersions(chosen, baseline) < 0) {
    return { ok: false, reason: `supports ${server.max.text}, but maxVersion caps the client at ${ours.text}, below the ${baseline.text} metalfleet needs (node inventory): raise maxVersion` };
  }
  if (compareVersions(server.min, chosen) > 0) {
    return { ok: false, reason: `requires API version ${server.min.text} or newer, but maxVersion caps the client at ${chosen.text}: raise maxVersion` };
  }
  return { ok: true, version: chosen };
}
