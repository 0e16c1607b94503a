import { DNS_ATTACHED_REASONS as D, MAAS_CONDITIONS } from '../../api/index.ts';
import { externalIps } from './status.ts';
import type { Turn } from './turn.ts';
import { dnsNameOf } from './world.ts';

// A control-plane machine reports whether the cluster's API record holds its address
// (CAPMAAS's DNSAttached, §2.3 step 9). The MaasCluster is the record's only writer; a machine
// only reads it, so two writers never replace each other's whole address set (MAAS's PUT
// replaces the set).

/** Whether this machine's address is in the record it reads now. */
export type DnsReading = 'lookup' | 'attached' | 'detached' | 'unknown';

/** Reads the record when what was read is stale; 'lookup' means a read is under way. */
export function readDns(t: Turn): DnsReading {
  const fqdn = dnsNameOf(t.s.world);
  const mine = externalIps(t.s.status, t.s.view);
  if (!fqdn || mine.length === 0) return 'unknown';
  if (t.s.dnsIps === null || t.now >= t.s.nextDnsAt) {
    t.lookupDns(fqdn);
    return 'lookup';
  }
  const record = new Set(t.s.dnsIps);
  return mine.some((ip) => record.has(ip)) ? 'attached' : 'detached';
}

/** For a running machine: 'attached', 'pending' (waiting for the cluster to add it), or 'lookup'. */
export function dnsAttachment(t: Turn): 'lookup' | 'attached' | 'pending' {
  if (!t.controlPlane) return 'attached';
  // A VIP cluster's endpoint follows kube-vip's leader, not a DNS record.
  if (t.s.world.maasCluster?.spec.controlPlaneVIP) {
    t.dropCondition(MAAS_CONDITIONS.DNSAttached);
    return 'attached';
  }
  const reading = readDns(t);
  if (reading === 'lookup') {
    // CAPMAAS decides DNSAttached in the reconcile that finds the machine Deployed, so Ready (its
    // summary with MachineDeployed) is never True before it: until the first read answers, the
    // attachment is pending, not absent. A result already known stays while it is read again.
    if (!t.s.status.conditions?.some((c) => c.type === MAAS_CONDITIONS.DNSAttached)) {
      t.dnsAttached('False', D.DNSAttachPending, `reading ${dnsNameOf(t.s.world) ?? ''} to see whether it holds this machine`);
    }
    return 'lookup';
  }
  if (reading === 'attached') {
    t.dnsAttached('True', D.DNSAttached);
    return 'attached';
  }
  const fqdn = dnsNameOf(t.s.world);
  t.dnsAttached('False', D.DNSAttachPending, fqdn ? `waiting for the cluster to add this machine to ${fqdn}` : 'the MaasCluster has no DNS name yet');
  return 'pending';
}
