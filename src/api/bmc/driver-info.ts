import type { BmcCredentials, BmcTransport, DriverInfo, DriverInfoOptions } from './types.ts';

const IPMI_DEFAULT_PORT = 623;
const IPMI_DEFAULT_PRIVILEGE = 'ADMINISTRATOR';
const REDFISH_DEFAULT_SCHEME = 'https';

export type Endpoint = { host: string; port: number | null; path: string; rawQuery: string };

function authority(endpoint: Endpoint): string {
  const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host;
  return endpoint.port === null ? host : `${host}:${endpoint.port}`;
}

// Go's url.ParseQuery fails on ";" separators and bad escapes anywhere in the query; BMO then
// falls back to the default rather than rejecting the address.
function privilegeLevel(rawQuery: string): string {
  if (rawQuery.includes(';')) return IPMI_DEFAULT_PRIVILEGE;
  const unescape = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
  let found: string | undefined;
  try {
    for (const pair of rawQuery.split('&')) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      const key = unescape(eq < 0 ? pair : pair.slice(0, eq));
      const value = unescape(eq < 0 ? '' : pair.slice(eq + 1));
      if (key === 'privilegelevel' && found === undefined) found = value;
    }
  } catch {
    return IPMI_DEFAULT_PRIVILEGE;
  }
  return found ?? IPMI_DEFAULT_PRIVILEGE;
}

export function ipmiDriverInfo(endpoint: Endpoint) {
  return (credentials: BmcCredentials, opts?: DriverInfoOptions): DriverInfo => {
    const info: DriverInfo = {
      ipmi_address: endpoint.host,
      ipmi_port: endpoint.port ?? IPMI_DEFAULT_PORT,
      ipmi_priv_level: privilegeLevel(endpoint.rawQuery),
      ipmi_username: credentials.username,
      ipmi_password: credentials.password,
    };
    // BMO sets this for IPMI too; ipmitool ignores it, kept so node driver_info matches BMO's.
    if (opts?.disableCertificateVerification) info.ipmi_verify_ca = false;
    return info;
  };
}

// The idrac hardware type with idrac-redfish interfaces reads the same redfish_* keys.
export function redfishDriverInfo(endpoint: Endpoint, transport: BmcTransport | null) {
  return (credentials: BmcCredentials, opts?: DriverInfoOptions): DriverInfo => {
    const info: DriverInfo = {
      redfish_address: `${transport ?? REDFISH_DEFAULT_SCHEME}://${authority(endpoint)}`,
      redfish_username: credentials.username,
      redfish_password: credentials.password,
    };
    const trimmed = endpoint.path.replace(/^\/+|\/+$/g, '');
    if (trimmed !== '' && trimmed !== 'redfish/v1') info.redfish_system_id = endpoint.path;
    if (opts?.disableCertificateVerification) info.redfish_verify_ca = false;
    return info;
  };
}
