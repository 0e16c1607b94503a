// The MaasMachine providerID, which CAPMAAS also writes to the workload Node (reference/capmaas.md
// §1.4). It is written as `maas:///<zone>/<system_id>`, three slashes (the Go doc comment's
// `maas://<zone>/id` is wrong), and read with CAPMAAS's looser rule (pkg/util/machine.go): the
// whole value matches `^[^:]+://.*[^/]$`, the system id is what follows the last `/`.

import { MetalfleetError } from '../metalfleet-error.ts';

export const MAAS_PROVIDER = 'maas';

export type ProviderIdErrorCode =
  | 'empty'            // ""
  | 'no-provider'      // nothing before "://"
  | 'no-separator'     // the first ":" does not start "://"
  | 'no-id'            // nothing after "://"
  | 'trailing-slash'   // ends with "/", so the id would be empty
  | 'line-break';      // a line break before the last character (Go's `.` stops at "\n")

export class ProviderIdError extends MetalfleetError {
  constructor(override readonly code: ProviderIdErrorCode, message: string, readonly providerId: string) {
    super(code, message, false);
    this.name = 'ProviderIdError';
  }
}

export type ProviderIdParseResult =
  | { ok: true; provider: string; zone: string; systemId: string }
  | { ok: false; error: ProviderIdError };

const FORM = '<provider>://<optional>/<segments>/<id> (for MAAS maas:///<zone>/<system_id>)';

// `[^\n]` stands for Go's `.`, which (unlike JavaScript's) matches "\r" and U+2028/9.
const PROVIDER_ID = /^[^:]+:\/\/[^\n]*[^/]$/;

/** `maas:///<zone>/<system_id>`. Throws a RangeError when the result would not parse back to the same parts. */
export function formatProviderId(zone: string, systemId: string): string {
  if (systemId === '' || systemId.includes('/') || systemId.includes('\n')) {
    throw new RangeError(`a MAAS system id must be non-empty, without "/" or line breaks: ${JSON.stringify(systemId)}`);
  }
  if (zone.includes('/') || zone.includes('\n')) throw new RangeError(`a MAAS zone name cannot hold "/" or line breaks: ${JSON.stringify(zone)}`);
  return `${MAAS_PROVIDER}:///${zone}/${systemId}`;
}

function failure(code: ProviderIdErrorCode, value: string, why: string): ProviderIdParseResult {
  const message = code === 'empty' ? 'providerID is empty' : `providerID ${JSON.stringify(value)} must be of the form ${FORM}: ${why}`;
  return { ok: false, error: new ProviderIdError(code, message, value) };
}

/**
 * Reads a providerID as CAPMAAS does. `zone` is the path segment before the id: `az1` for
 * `maas:///az1/abc123`, empty for `maas:///abc123`. The provider is not checked here (CAPMAAS
 * does not); a MaasMachine's validation requires `maas`.
 */
export function parseProviderId(value: string): ProviderIdParseResult {
  if (value === '') return failure('empty', value, '');
  if (!PROVIDER_ID.test(value)) {
    const colon = value.indexOf(':');
    if (colon === -1 || !value.startsWith('://', colon)) return failure('no-separator', value, 'there is no "://" after the provider name');
    if (colon === 0) return failure('no-provider', value, 'there is no provider name before "://"');
    const rest = value.slice(colon + 3);
    if (rest === '') return failure('no-id', value, 'there is nothing after "://"');
    if (rest.endsWith('/')) return failure('trailing-slash', value, 'it ends with "/", so it names no id');
    return failure('line-break', value, 'it contains a line break');
  }
  const lastSlash = value.lastIndexOf('/');
  const before = value.slice(0, lastSlash);
  return {
    ok: true,
    provider: value.slice(0, value.indexOf(':')),
    zone: before.slice(before.lastIndexOf('/') + 1),
    systemId: value.slice(lastSlash + 1),
  };
}
