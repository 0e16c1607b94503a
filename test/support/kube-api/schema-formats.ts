// The string formats apiextensions validates (`validation/formats.go`); strfmt matches names with
// dashes removed, so `date-time` is `datetime`. Unknown formats are not checked, as on the server.
import { isIP } from 'node:net';

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MAC = /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$|^([0-9a-f]{2}[:-]){7}[0-9a-f]{2}$|^([0-9a-f]{4}\.){2}[0-9a-f]{4}$/i;
const HOSTNAME = /^(?=.{1,255}$)[a-zA-Z0-9](?:[-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)*\.?$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

const CHECKS: Record<string, (v: string) => boolean> = {
  uuid: (v) => UUID.test(v),
  uuid3: (v) => UUID.test(v),
  uuid4: (v) => UUID.test(v),
  uuid5: (v) => UUID.test(v),
  date: (v) => DATE.test(v) && !Number.isNaN(Date.parse(v)),
  datetime: (v) => DATETIME.test(v) && !Number.isNaN(Date.parse(v)),
  byte: (v) => BASE64.test(v),
  ipv4: (v) => isIP(v) === 4,
  ipv6: (v) => isIP(v) === 6,
  cidr: (v) => {
    const [ip, bits, extra] = v.split('/');
    const family = isIP(ip ?? '');
    const max = family === 4 ? 32 : 128;
    return extra === undefined && family !== 0 && /^\d{1,3}$/.test(bits ?? '') && Number(bits) <= max;
  },
  mac: (v) => MAC.test(v),
  hostname: (v) => HOSTNAME.test(v),
  email: (v) => EMAIL.test(v),
  // Go's url.ParseRequestURI: an absolute URI or an absolute path.
  uri: (v) => v.startsWith('/') || URL.canParse(v),
};

export function validFormat(format: string, value: string): boolean {
  const check = CHECKS[format.replaceAll('-', '').toLowerCase()];
  return check === undefined || check(value);
}
