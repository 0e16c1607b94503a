import { ipmiDriverInfo, redfishDriverInfo, type Endpoint } from './driver-info.ts';
import { BmcAddressError } from './errors.ts';
import { hostnameOf, isIpAddress, parseGoUrl, portOf, redactRefused, splitsAsHostPort, type GoUrl } from './go-url.ts';
import { BMC_TYPES, BMC_TYPE_TABLE, isBmcType, type BmcAccess, type BmcTransport, type BmcType } from './types.ts';

export type BmcParseResult = { ok: true; bmc: BmcAccess } | { ok: false; error: BmcAddressError };

const PARSE_PREFIX = 'failed to parse BMC address information';
const DNS_NAME = /^(([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]{0,61}[a-zA-Z0-9])\.)*([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9-]{0,61}[A-Za-z0-9])$/;

type Located = { ok: true; url: GoUrl; rewritten: 'none' | 'opaque' | 'bare' | 'host-port' } | { ok: false; error: BmcAddressError };

function unparseable(address: string, reason: string): { ok: false; error: BmcAddressError } {
  const { shown, hide } = redactRefused(address);
  return { ok: false, error: new BmcAddressError('unparseable', `${PARSE_PREFIX}: parse ${JSON.stringify(shown)}: ${hide(reason)}`, shown) };
}

// BMO's GetParsedURL (access.go): URL, then host:port, opaque scheme:host, bare host; the
// hostname must be an IP or a DNS name.
function locate(address: string): Located {
  const first = parseGoUrl(address);
  let url: GoUrl;
  let rewritten: 'none' | 'opaque' | 'bare' | 'host-port' = 'none';
  if (!first.ok) {
    // "192.0.2.1:623" and "[fe80::1]:623" are not URLs to Go (a colon in the first path
    // segment); a string that splits as host:port is taken as an IPMI address.
    if (address.includes(':') && !splitsAsHostPort(address)) return unparseable(address, first.reason);
    url = { scheme: 'ipmi', opaque: '', userinfo: null, host: address, path: '', rawQuery: '' };
    rewritten = 'host-port';
  } else {
    url = first.url;
    if (url.opaque !== '') {
      const again = parseGoUrl(address.replace(':', '://'));
      if (!again.ok) return unparseable(address, again.reason);
      url = again.url;
      rewritten = 'opaque';
    }
    if (url.scheme === '' && hostnameOf(url.host) === '') {
      // No scheme and no host: the whole string was read as a path, so it is a bare IP or name.
      const again = parseGoUrl(`ipmi://${address}`);
      if (!again.ok) return unparseable(address, again.reason);
      url = again.url;
      rewritten = 'bare';
    }
  }
  const hostname = hostnameOf(url.host);
  if (hostname !== '' && !isIpAddress(hostname) && !DNS_NAME.test(hostname)) {
    // After the host:port fallback the "hostname" can be the whole address, userinfo included.
    const { shown, hide } = redactRefused(address);
    let message = `${PARSE_PREFIX}: BMC address hostname/IP : [${redactRefused(hostname).shown}] is invalid (not an IP address or a DNS name)`;
    if (!first.ok && !first.reason.startsWith('first path segment')) message += `; as a URL: ${hide(first.reason)}`;
    return { ok: false, error: new BmcAddressError('invalid-host', message, shown) };
  }
  return { ok: true, url, rewritten };
}

function lookupType(scheme: string): { type: BmcType; transport: BmcTransport | null } | null {
  if (isBmcType(scheme)) return { type: scheme, transport: null };
  const m = /^(.+)\+(http|https)$/.exec(scheme);
  if (m && isBmcType(m[1] as string) && BMC_TYPE_TABLE[m[1] as BmcType].acceptsTransport) {
    return { type: m[1] as BmcType, transport: m[2] as BmcTransport };
  }
  return null;
}

/**
 * Parses a `spec.bmc.address` exactly as the baremetal-operator does (reference/bmo.md §2.2):
 * `ipmi://host:623`, a bare IP or DNS name, `host:port`, `[v6]:port`, `redfish:host`,
 * `redfish-virtualmedia+http://host/redfish/v1/Systems/1`, …
 */
export function parseBmcAddress(address: string): BmcParseResult {
  if (address === '') return { ok: false, error: new BmcAddressError('missing', 'missing BMC address', '') };
  const located = locate(address);
  if (!located.ok) return located;
  const { url, rewritten } = located;
  // Every use below is in a refusal.
  const refused = redactRefused(address);
  const shown = refused.shown;

  const found = lookupType(url.scheme);
  if (!found) {
    let message = `Unknown BMC type '${url.scheme}' for address ${shown}`;
    // "bmc.example.com:623" reads as scheme "bmc.example.com"; only an IP may lead a host:port.
    if (rewritten === 'opaque' && /^[0-9]+$/.test(url.host)) {
      message += `; to give a port, write a scheme first, e.g. ipmi://${url.scheme}:${url.host}`;
    } else {
      message += ` (supported: ${BMC_TYPES.join(', ')}; all but ipmi and libvirt also as <type>+http or <type>+https)`;
    }
    return { ok: false, error: new BmcAddressError('unknown-type', message, shown, url.scheme) };
  }

  const host = hostnameOf(url.host);
  if (host === '') {
    return { ok: false, error: new BmcAddressError('missing-host', `BMC address ${shown} has no host`, shown) };
  }
  const portText = portOf(url.host);
  let port: number | null = null;
  if (portText !== '') {
    port = Number(portText);
    if (!Number.isSafeInteger(port) || port < 1 || port > 65535) {
      return { ok: false, error: new BmcAddressError('invalid-port', `BMC address ${shown} has port ${refused.hides(portText) ? 'xxxxx' : portText}, outside 1-65535`, shown) };
    }
  }

  const row = BMC_TYPE_TABLE[found.type];
  const endpoint: Endpoint = { host, port, path: url.path, rawQuery: url.rawQuery };
  const bmc: BmcAccess = {
    scheme: url.scheme,
    host,
    port,
    path: url.path,
    type: found.type,
    transport: found.transport,
    driver: row.driver,
    interfaces: { ...row.interfaces },
    needsMac: row.needsMac,
    supportsVirtualMedia: row.supportsVirtualMedia,
    supportsSecureBoot: row.supportsSecureBoot,
    supportsOutOfBandInspect: row.interfaces.inspect !== 'agent',
    needsProvisioningNetwork: row.needsProvisioningNetwork,
    driverInfo: row.driverInfo === 'ipmi' ? ipmiDriverInfo(endpoint) : redfishDriverInfo(endpoint, found.transport),
  };
  return { ok: true, bmc };
}

/**
 * Whether the host needs `spec.bootMACAddress`: always for drivers whose MAC cannot be discovered
 * (libvirt), and for every driver when inspection is disabled (nothing will discover it).
 */
export function needsBootMac(bmc: Pick<BmcAccess, 'needsMac'>, opts: { inspectionDisabled: boolean }): boolean {
  return bmc.needsMac || opts.inspectionDisabled;
}
