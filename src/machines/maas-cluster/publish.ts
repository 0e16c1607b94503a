import {
  API_SERVER_AVAILABLE_REASONS as API, DNS_ATTACHED_REASONS as D, LOAD_BALANCER_READY_REASONS as LB, MAAS_CONDITIONS as C,
} from '../../api/index.ts';
import { planDns } from './dns-plan.ts';
import { controlPlaneMembers } from './members.ts';
import { apiPort, dnsNameOf } from './record.ts';
import type { Turn } from './turn.ts';

// The record follows the running control plane (CAPMAAS's reconcileDNSAttachments, §2.2 step 5,
// without its empty PUT), then status and the endpoint are published (steps 3-4).
export function active(t: Turn): boolean {
  const record = t.s.record;
  const fqdn = dnsNameOf(t);
  if (!record || record.fqdn !== fqdn) {
    t.transition('pending');
    return true;
  }
  // Read the record again now and then: someone may have changed it in MAAS.
  if (t.s.recordAt === null || t.now - t.s.recordAt >= t.s.config.resyncMs) {
    t.dns({ op: 'find', fqdn });
    return false;
  }
  const members = controlPlaneMembers(t.s.world.machines);
  const plan = planDns(record.ips, members);
  if (plan.changed) {
    const reason = plan.attached.length > 0 ? D.DNSAttachPending : D.DNSDetachPending;
    t.condition(C.DNSAttached, { status: 'False', reason, message: change(plan.attached, plan.detached, fqdn) });
    t.dns({ op: 'update', id: record.id, ips: plan.ips });
    return false;
  }
  const running = new Set(members.filter((m) => m.running && !m.deleting).flatMap((m) => m.ips.slice(0, 1)));
  t.condition(C.LoadBalancerReady, { status: 'True', reason: LB.LoadBalancerReady });
  t.condition(C.DNSAttached, { status: 'True', reason: D.DNSAttached });
  // metalfleet does not dial the workload API: the endpoint counts as available once its name
  // resolves to a running control-plane machine.
  if (record.ips.some((ip) => running.has(ip))) t.condition(C.APIServerAvailable, { status: 'True', reason: API.APIServerAvailable });
  else t.condition(C.APIServerAvailable, { status: 'False', reason: API.APIServerNotReady, message: `${fqdn} holds no running control-plane machine yet` });
  t.setStatus({
    ready: true,
    initialization: { provisioned: true },
    network: { dnsName: fqdn },
    failureDomains: (t.s.object.spec.failureDomains ?? []).map((name) => ({ name, controlPlane: true })),
  });
  const port = apiPort(t);
  const endpoint = t.s.object.spec.controlPlaneEndpoint;
  if (endpoint?.host !== fqdn || endpoint.port !== port) t.effects.push({ type: 'writeSpec', patch: { controlPlaneEndpoint: { host: fqdn, port } } });
  t.requeue(t.s.recordAt + t.s.config.resyncMs - t.now);
  return false;
}

function change(attached: readonly string[], detached: readonly string[], fqdn: string): string {
  const parts = [...(attached.length ? [`adding ${attached.join(', ')}`] : []), ...(detached.length ? [`removing ${detached.join(', ')}`] : [])];
  return `${parts.join(' and ')} in ${fqdn}`;
}
