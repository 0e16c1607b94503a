import { apiServerPortOf, LOAD_BALANCER_READY_REASONS as LB, MAAS_CONDITIONS } from '../../api/index.ts';
import { dnsNameFor, dnsSuffixOf } from './dns-plan.ts';
import type { Turn } from './turn.ts';

/** The API server's DNS name: the Cluster's endpoint host, else the one in status, else a new one. */
export function dnsNameOf(t: Turn): string {
  const cluster = t.s.world.cluster;
  return dnsNameFor({
    endpointHost: cluster?.spec?.controlPlaneEndpoint?.host,
    statusName: t.s.object.status?.network?.dnsName ?? t.s.status.network?.dnsName,
    cluster: cluster?.metadata.name ?? t.s.object.metadata.name,
    dnsDomain: t.s.object.spec.dnsDomain,
    suffix: dnsSuffixOf(t.s.object),
  });
}

export function apiPort(t: Turn): number {
  return t.s.world.cluster ? apiServerPortOf(t.s.world.cluster) : 6443;
}

// No record known yet (CAPMAAS's ReconcileDNS, §2.2 step 2): find it by name; a miss creates it
// empty (the result handler does that), and the cluster becomes active.
export function pending(t: Turn): boolean {
  const fqdn = dnsNameOf(t);
  if (t.s.record && t.s.record.fqdn === fqdn) {
    t.transition('active');
    return true;
  }
  if (!t.s.status.conditions?.some((c) => c.type === MAAS_CONDITIONS.LoadBalancerReady)) {
    t.condition(MAAS_CONDITIONS.LoadBalancerReady, { status: 'False', reason: LB.WaitForDNSName, message: `looking up ${fqdn} in MAAS` });
  }
  t.dns({ op: 'find', fqdn });
  return false;
}
