import { validationError } from '../http/api-error.ts';
import { API_PREFIX } from '../fleet/machine-json.ts';

// One DNS resource record other than an address (MAAS's DNSData, models/dnsdata.py): CNAME, MX,
// NS, SRV, SSHFP or TXT data on a DNS resource, checked as DNSData.clean_rrdata checks it.

export interface DnsData {
  readonly id: number;
  rrtype: string;
  rrdata: string;
  ttl: number | null;
}

const SUPPORTED_RRTYPES = ['CNAME', 'MX', 'NS', 'SRV', 'SSHFP', 'TXT'];
// Python set order in MAAS's message is arbitrary; this is one such order.
const RRTYPE_LIST = 'CNAME MX NS SRV SSHFP TXT';
const CNAME_LABEL = '[_a-zA-Z0-9]([-_a-zA-Z0-9]{0,62}[_a-zA-Z0-9]){0,1}';
const CNAME_SPEC = new RegExp(`^(${CNAME_LABEL}\\.)*${CNAME_LABEL}\\.?$`);
const DOMAIN_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;
const INVALID_CNAME_MSG = "Invalid CNAME: Should be '<server>'.";
const INVALID_MX_MSG = "Invalid MX: Should be '<preference> <server>'. Range for preference is 0-65535.";
const INVALID_SRV_MSG = "Invalid SRV: Should be '<priority> <weight> <port> <server>'. Range for priority, weight, and port are 0-65536.";
const INVALID_SSHFP_MSG = "Invalid SSHFP: Should be '<algorithm> <fptype> <fingerprint>'.";
export const CNAME_AND_OTHER_MSG = 'CNAME records for a name cannot coexist with non-CNAME records.';
export const MULTI_CNAME_MSG = 'Only one CNAME can be associated with a name.';

export function dnsDataJson(d: DnsData, fqdn: string) {
  return { id: d.id, fqdn, ttl: d.ttl, rrtype: d.rrtype, rrdata: d.rrdata, resource_uri: `${API_PREFIX}/dnsresourcerecords/${d.id}/` };
}

/** The rrtype, upper-cased, or a form error on `rrtype`. */
export function checkRrtype(value: string): string {
  const upper = value.toUpperCase();
  if (!SUPPORTED_RRTYPES.includes(upper)) throw validationError({ rrtype: [`${upper} is not one of ${RRTYPE_LIST}.`] });
  return upper;
}

function checkDomain(name: string): void {
  if (!DOMAIN_NAME.test(name)) throw validationError({ __all__: [/[^a-zA-Z0-9.-]/.test(name) ? 'Domain name contains invalid characters.' : `Invalid domain name: ${name}.`] });
}

function inRange(text: string | undefined): boolean {
  const n = Number(text);
  return n >= 0 && n <= 65535;
}

// clean_rrdata: a model clean, so its errors are the form's __all__.
export function checkRrdata(rrtype: string, rrdata: string): void {
  const bad = (message: string) => validationError({ __all__: [message] });
  switch (rrtype) {
    case 'CNAME':
      if (!CNAME_SPEC.test(rrdata)) throw bad(INVALID_CNAME_MSG);
      return;
    case 'SSHFP':
      if (!/^[0-9]+\s+[0-9]+\s+.*$/.test(rrdata)) throw bad(INVALID_SSHFP_MSG);
      return;
    case 'MX': {
      const m = /^([0-9]+)\s+(.+)$/.exec(rrdata);
      if (!m || !inRange(m[1])) throw bad(INVALID_MX_MSG);
      checkDomain(m[2] ?? '');
      return;
    }
    case 'NS':
      checkDomain(rrdata);
      return;
    case 'SRV': {
      const m = /^([0-9]+)\s+([0-9]+)\s+([0-9]+)\s+(.*)/.exec(rrdata);
      if (!m || !inRange(m[1]) || !inRange(m[2]) || !inRange(m[3])) throw bad(INVALID_SRV_MSG);
      if (m[4] !== '.') checkDomain(m[4] ?? '');
      return;
    }
    default:
      // TXT is free-form.
      return;
  }
}

/** DNSDataForm.ttl: a non-negative whole number, or empty for none. */
export function readDataTtl(text: string | undefined, current: number | null): number | null {
  if (text === undefined) return current;
  if (text.trim() === '') return null;
  if (!/^\s*[+-]?\d+\s*$/.test(text)) throw validationError({ ttl: ['Enter a whole number.'] });
  const ttl = Number(text.trim());
  if (ttl < 0) throw validationError({ ttl: ['Ensure this value is greater than or equal to 0.'] });
  return ttl;
}
