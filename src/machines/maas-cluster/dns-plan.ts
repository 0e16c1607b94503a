import { fmix32, fnv1a32 } from '../../api/index.ts';
// What the control-plane DNS record of a MaasCluster should hold (reference/capmaas.md §2.2).

export interface ControlPlaneMember {
  readonly key: string;
  /** The MaasMachine's name, for messages. */
  readonly name?: string | undefined;
  /** Its MAAS system id, once allocated. */
  readonly systemId?: string | undefined;
  readonly ips: readonly string[]; // the machine's addresses; the first is the one published
  readonly running: boolean; // powered on and Deploying or Deployed
  readonly deleting: boolean;
}

export interface DnsPlan {
  readonly ips: readonly string[];
  readonly changed: boolean;
  readonly attached: readonly string[];
  readonly detached: readonly string[];
}

// Running members are published, others are taken out. When no member is running at all but
// some merely lost power for a moment, the record keeps the addresses of those still in the
// cluster rather than going empty: CAPMAAS wiped the API name that way until its PR #339.
export function planDns(current: readonly string[], members: readonly ControlPlaneMember[]): DnsPlan {
  const running = members.filter((m) => m.running && !m.deleting && m.ips[0] !== undefined).map((m) => m.ips[0] as string);
  let ips: string[];
  if (running.length > 0) {
    ips = unique(running);
  } else {
    const stillMembers = new Set(members.filter((m) => !m.deleting).flatMap((m) => m.ips));
    ips = current.filter((ip) => stillMembers.has(ip));
  }
  ips.sort(compareIp);
  const before = new Set(current);
  const after = new Set(ips);
  const attached = ips.filter((ip) => !before.has(ip));
  const detached = current.filter((ip) => !after.has(ip));
  return { ips, changed: attached.length > 0 || detached.length > 0, attached, detached };
}

// CAPMAAS: "<cluster>-<6 hex>.<dnsDomain>" unless the Cluster names its endpoint or status
// already has a name. CAPMAAS's 6 hex are random; ours come from dnsSuffixOf.
export function dnsNameFor(o: { endpointHost?: string | undefined; statusName?: string | undefined; cluster: string; dnsDomain: string; suffix: string }): string {
  if (o.endpointHost) return o.endpointHost;
  if (o.statusName) return o.statusName;
  return `${o.cluster}-${o.suffix.slice(0, 6)}.${o.dnsDomain}`;
}

/** The DNS domain MAAS files a name under: it splits the name at its first label into name and domain. */
export function dnsDomainOf(fqdn: string): string {
  const dot = fqdn.indexOf('.');
  return dot < 0 ? fqdn : fqdn.slice(dot + 1);
}

/**
 * The 6 hex of a new DNS name, from the MaasCluster's identity (its uid; namespace/name where a
 * store gives no uid) rather than at random as CAPMAAS does: an owner killed between creating the
 * record and writing its name to status leaves the record behind, and the next owner must arrive
 * at the same name to find it instead of creating a second one.
 */
export function dnsSuffixOf(object: { readonly metadata: { readonly uid?: string | undefined; readonly namespace?: string | undefined; readonly name: string } }): string {
  const identity = object.metadata.uid ?? `${object.metadata.namespace ?? 'default'}/${object.metadata.name}`;
  // murmur3's finaliser over FNV: FNV leaves the top bits, which the suffix takes, poorly mixed.
  return fmix32(fnv1a32(identity)).toString(16).padStart(8, '0').slice(0, 6);
}


function unique(xs: readonly string[]): string[] {
  return [...new Set(xs)];
}

function compareIp(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0 && !Number.isNaN(d)) return d;
  }
  return a.localeCompare(b);
}
