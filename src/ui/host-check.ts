// DNS rebinding: a web page elsewhere can point its own name at 127.0.0.1 and have the browser
// read this server as that page's origin. Such requests carry the other name in Host, so a
// dashboard on loopback answers only requests addressed to a loopback name.
import { BlockList, isIP } from 'node:net';

const LOOPBACK_HOST = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)(:\d+)?$/i;

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Loopback in any spelling the server listens on as loopback: `LOCALHOST`, `localhost.`,
 * `0:0:0:0:0:0:0:1`, `::ffff:127.0.0.1` went unchecked, as only `127.x.y.z`, `::1` and
 * `localhost` were known, and requests for any name were answered.
 */
export function isLoopback(bind: string): boolean {
  const name = bind.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  if (name === 'localhost') return true;
  const family = isIP(name);
  // An IPv4-mapped IPv6 address is matched against the IPv4 loopback range.
  return family !== 0 && LOOPBACK.check(name, family === 6 ? 'ipv6' : 'ipv4');
}

/** True when the request may be answered: any Host off loopback binds, a loopback name on them. */
export function hostAllowed(bind: string, host: string | undefined): boolean {
  if (!isLoopback(bind)) return true;
  return host !== undefined && LOOPBACK_HOST.test(host);
}
