import {
  API_SERVER_AVAILABLE_REASONS as API, DNS_ATTACHED_REASONS as D, LOAD_BALANCER_READY_REASONS as LB, MAAS_CONDITIONS as C,
} from '../../api/index.ts';
import { planDns } from './dns-plan.ts';
import type { ControlPlaneMember } from './dns-plan.ts';
import { HELD_BY_ANOTHER_USER, heldMemberMessage } from './held.ts';
import { chosenAddress, nicsKeyOf, noMatchMessage } from './interface-choice.ts';
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
  const chosen = publishedMembers(t);
  if (!chosen) return false;
  const { members, unmatched, held } = chosen;
  const plan = planDns(record.ips, members);
  if (plan.changed) {
    const reason = plan.attached.length > 0 ? D.DNSAttachPending : D.DNSDetachPending;
    t.condition(C.DNSAttached, { status: 'False', reason, message: change(plan.attached, plan.detached, fqdn) });
    t.dns({ op: 'update', id: record.id, ips: plan.ips });
    return false;
  }
  const running = new Set(members.filter((m) => m.running && !m.deleting).flatMap((m) => m.ips.slice(0, 1)));
  t.condition(C.LoadBalancerReady, { status: 'True', reason: LB.LoadBalancerReady });
  if (held.length > 0) t.condition(C.DNSAttached, { status: 'False', reason: HELD_BY_ANOTHER_USER, message: [...held, ...unmatched].join('; ') });
  else if (unmatched.length > 0) t.condition(C.DNSAttached, { status: 'False', reason: D.NoMatchingInterface, message: unmatched.join('; ') });
  else t.condition(C.DNSAttached, { status: 'True', reason: D.DNSAttached });
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

/**
 * The control-plane members with the address each publishes: its first, or with
 * spec.apiServerInterface the one of the NIC chosen (read from MAAS first; null while a read is
 * under way). A running machine with no matching NIC publishes none and is named in `unmatched`;
 * one another MAAS user holds is named in `held` (vip-results.ts).
 */
export function publishedMembers(t: Turn, read = true): { members: ControlPlaneMember[]; unmatched: string[]; held: string[] } | null {
  const members = controlPlaneMembers(t.s.world.machines);
  const sel = t.s.object.spec.apiServerInterface;
  if (!sel) return { members, unmatched: [], held: [] };
  const live = (m: ControlPlaneMember) => m.running && !m.deleting;
  for (const m of read ? members.filter(live) : []) {
    const key = nicsKeyOf(m);
    const known = key ? t.s.nics[key] : undefined;
    if (key && m.systemId && (!known || t.now - known.at >= t.s.config.resyncMs)) {
      t.ip({ op: 'interfaces', systemId: m.systemId }, key);
      return null;
    }
  }
  const unmatched: string[] = [];
  const held: string[] = [];
  const out = members.map((m): ControlPlaneMember => {
    const key = nicsKeyOf(m);
    const known = key ? t.s.nics[key] : undefined;
    const nics = known?.nics;
    if (known?.held && live(m)) held.push(heldMemberMessage(m, nics !== null && nics !== undefined));
    if (!nics) return { ...m, ips: [] };
    const ip = chosenAddress(nics, sel);
    if (ip === null && live(m)) unmatched.push(noMatchMessage(m, nics, sel));
    return { ...m, ips: ip === null ? [] : [ip] };
  });
  return { members: out, unmatched, held };
}

function change(attached: readonly string[], detached: readonly string[], fqdn: string): string {
  const parts = [...(attached.length ? [`adding ${attached.join(', ')}`] : []), ...(detached.length ? [`removing ${detached.join(', ')}`] : [])];
  return `${parts.join(' and ')} in ${fqdn}`;
}
