// The parts of Go's net/url and net that the baremetal-operator's BMC address parsing and image URL
// check rely on. WHATWG URL (Node's `URL`) throws on what Go reads as a relative reference
// ("192.0.2.1:623", "[fe80::1]:623") and normalises hosts and paths its own way, so an address BMO
// accepts must parse the same way here, quirks included.

export type GoUrl = {
  scheme: string;
  opaque: string;
  /** Raw userinfo, never shown to a user; see redactUrl. */
  userinfo: string | null;
  /** host[:port] as written, IPv6 in brackets. */
  host: string;
  path: string;
  rawQuery: string;
};

export type GoUrlResult = { ok: true; url: GoUrl } | { ok: false; reason: string };

function hasControlByte(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

function getScheme(raw: string): { scheme: string; rest: string } | { error: string } {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return { scheme: '', rest: raw };
      continue;
    }
    if (c === ':') {
      if (i === 0) return { error: 'missing protocol scheme' };
      return { scheme: raw.slice(0, i), rest: raw.slice(i + 1) };
    }
    return { scheme: '', rest: raw };
  }
  return { scheme: '', rest: raw };
}

function validOptionalPort(port: string): boolean {
  if (port === '') return true;
  return /^:[0-9]*$/.test(port);
}

// RFC 3986 sub-delims plus what Go lets through in a host; anything else (space, %, {, |, …) is
// "invalid character in host name".
const HOST_CHAR = /^[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"]$/;
const USERINFO = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/;

function parseHost(host: string, scheme: string): { host: string } | { error: string } {
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0) return { error: "missing ']' in host" };
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) return { error: `invalid port ${JSON.stringify(colonPort)} after host` };
    // Go 1.24.8/1.25.2 on (CVE-2025-47912; BMO builds with 1.26): only an IPv6 address goes in
    // brackets, so "[192.0.2.1]" and "[bmc.example.com]" are no host to url.Parse.
    const literal = host.slice(1, close);
    const zone = literal.indexOf('%25');
    const address = zone >= 0 ? literal.slice(0, zone) : literal;
    if (IPV4.test(address)) return { error: 'invalid IP-literal' };
    if (!isIpv6(address)) return { error: `invalid host: ParseAddr(${JSON.stringify(address)}): not an IPv6 address` };
  } else {
    // Go 1.26 (go.dev/issue/75223, 78077): an http or https host has one colon at most, before
    // its port; other schemes keep reading the port after the last colon.
    const colon = scheme === 'http' || scheme === 'https' ? host.indexOf(':') : host.lastIndexOf(':');
    if (colon !== -1) {
      const colonPort = host.slice(colon);
      if (!validOptionalPort(colonPort)) return { error: `invalid port ${JSON.stringify(colonPort)} after host` };
    }
  }
  for (const c of host) {
    if (c.charCodeAt(0) < 0x80 && !HOST_CHAR.test(c)) {
      return { error: `invalid character ${JSON.stringify(c)} in host name` };
    }
  }
  return { host };
}

function unescapePath(path: string): { path: string } | { error: string } {
  const bad = /%(?![0-9A-Fa-f]{2})/.exec(path);
  if (bad) return { error: `invalid URL escape ${JSON.stringify(path.slice(bad.index, bad.index + 3))}` };
  try {
    return { path: decodeURIComponent(path) };
  } catch {
    // Valid escapes that are not UTF-8; Go keeps the bytes, we keep the text as written.
    return { path };
  }
}

/** Go's `url.Parse` (viaRequest=false) or `url.ParseRequestURI` (viaRequest=true). */
export function parseGoUrl(raw: string, opts: { viaRequest?: boolean } = {}): GoUrlResult {
  const viaRequest = opts.viaRequest ?? false;
  let input = raw;
  let fragment = '';
  if (!viaRequest) {
    const hash = input.indexOf('#');
    if (hash >= 0) {
      fragment = input.slice(hash + 1);
      input = input.slice(0, hash);
    }
  }
  if (hasControlByte(input)) return { ok: false, reason: 'net/url: invalid control character in URL' };
  if (input === '' && viaRequest) return { ok: false, reason: 'empty url' };
  const url: GoUrl = { scheme: '', opaque: '', userinfo: null, host: '', path: '', rawQuery: '' };
  if (input === '*') return { ok: true, url: { ...url, path: '*' } };

  const split = getScheme(input);
  if ('error' in split) return { ok: false, reason: split.error };
  url.scheme = split.scheme.toLowerCase();
  let rest = split.rest;

  if (rest.endsWith('?') && rest.split('?').length === 2) {
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      url.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }

  if (!rest.startsWith('/')) {
    if (url.scheme !== '') {
      // Rootless paths after a scheme are opaque (RFC 3986), e.g. "ipmi:192.0.2.1".
      url.opaque = rest;
      return { ok: true, url };
    }
    if (viaRequest) return { ok: false, reason: 'invalid URI for request' };
    const segment = rest.split('/')[0] ?? '';
    if (segment.includes(':')) return { ok: false, reason: 'first path segment in URL cannot contain colon' };
  }

  if ((url.scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    const at = authority.lastIndexOf('@');
    const parsedHost = parseHost(at < 0 ? authority : authority.slice(at + 1), url.scheme);
    if ('error' in parsedHost) return { ok: false, reason: parsedHost.error };
    url.host = parsedHost.host;
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!USERINFO.test(userinfo)) return { ok: false, reason: 'net/url: invalid userinfo' };
      url.userinfo = userinfo;
    }
  }

  const path = unescapePath(rest);
  if ('error' in path) return { ok: false, reason: path.error };
  url.path = path.path;
  // Go unescapes the fragment as well (setFragment), so a bad escape there fails the parse even
  // though the fragment itself is dropped.
  const badEscape = unescapePath(fragment);
  if ('error' in badEscape) return { ok: false, reason: badEscape.error };
  return { ok: true, url };
}

/** Go's `URL.Hostname()`: host without port, IPv6 without brackets. */
export function hostnameOf(hostPort: string): string {
  return splitHostPortLoose(hostPort).host;
}

/** Go's `URL.Port()`: the digits after the last colon, or ''. */
export function portOf(hostPort: string): string {
  return splitHostPortLoose(hostPort).port;
}

function splitHostPortLoose(hostPort: string): { host: string; port: string } {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon !== -1 && validOptionalPort(host.slice(colon))) {
    port = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return { host, port };
}

/** Whether Go's `net.SplitHostPort` accepts the string (it does not check the port's digits). */
export function splitsAsHostPort(hostPort: string): boolean {
  const last = hostPort.lastIndexOf(':');
  if (last < 0) return false;
  let j = 0;
  let k = 0;
  if (hostPort.startsWith('[')) {
    const end = hostPort.indexOf(']');
    if (end < 0 || end + 1 !== last) return false;
    j = 1;
    k = end + 1;
  } else if (hostPort.slice(0, last).includes(':')) {
    return false;
  }
  return !hostPort.slice(j).includes('[') && !hostPort.slice(k).includes(']');
}

const IPV4 = /^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$/;

/** Go's `net.ParseIP(s) != nil`: dotted IPv4 without leading zeros, or IPv6 without a zone. */
export function isIpAddress(s: string): boolean {
  if (IPV4.test(s)) return true;
  return isIpv6(s);
}

function isIpv6(s: string): boolean {
  if (!s.includes(':') || s.includes('%')) return false;
  let text = s;
  // An embedded IPv4 tail ("::ffff:192.0.2.1") stands for the last two groups.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!IPV4.test(tail)) return false;
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const groupsOf = (half: string): number | null => {
    if (half === '') return 0;
    const groups = half.split(':');
    return groups.every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g)) ? groups.length : null;
  };
  const left = groupsOf(halves[0] ?? '');
  const right = halves.length === 2 ? groupsOf(halves[1] ?? '') : 0;
  if (left === null || right === null) return false;
  // "::" must stand for at least one group.
  return halves.length === 2 ? left + right < 8 : left === 8;
}

/**
 * The URL with any userinfo replaced by `xxxxx`, so an address someone wrote as
 * `redfish://admin:secret@host` can be quoted back in an error without leaking the password.
 */
export function redactUrl(raw: string): string {
  const start = authorityStart(raw);
  const afterStart = raw.slice(start);
  const endMatch = /[/?#]/.exec(afterStart);
  const authority = endMatch ? afterStart.slice(0, endMatch.index) : afterStart;
  const at = authority.lastIndexOf('@');
  if (at < 0) return raw;
  return raw.slice(0, start) + 'xxxxx' + afterStart.slice(at);
}

function authorityStart(raw: string): number {
  const schemeEnd = raw.indexOf('://');
  return schemeEnd >= 0 ? schemeEnd + 3 : (/^[A-Za-z][A-Za-z0-9+\-.]*:/.exec(raw)?.[0].length ?? 0);
}

/**
 * An address quoted in its own refusal, and a redactor for the reason given. Go ends the
 * authority at the first "/", "?" or "#", so a password holding one is no userinfo to it:
 * redactUrl keeps it, and a reason quotes its start as a port (`invalid port ":pw" after host`).
 * Here all up to the last "@" is hidden, and every quoted fragment of what was hidden; an "@" in
 * a path costs the message some detail, never a password.
 */
export function redactRefused(raw: string): { shown: string; hide: (reason: string) => string; hides: (fragment: string) => boolean } {
  const start = authorityStart(raw);
  const at = raw.lastIndexOf('@');
  if (at < start) return { shown: redactUrl(raw), hide: (reason) => reason, hides: () => false };
  const hidden = raw.slice(start, at);
  const hides = (fragment: string): boolean => fragment !== '' && hidden.includes(fragment);
  return {
    shown: `${raw.slice(0, start)}xxxxx${raw.slice(at)}`,
    hide: (reason) => reason.replace(/"((?:[^"\\]|\\.)*)"/g, (quoted, inner: string) => (hides(inner) ? '"xxxxx"' : quoted)),
    hides,
  };
}
