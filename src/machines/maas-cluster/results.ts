import { DNS_ATTACHED_REASONS as D, LOAD_BALANCER_READY_REASONS as LB, MAAS_CONDITIONS as C } from '../../api/index.ts';
import { finish } from './deleting.ts';
import { dnsDomainOf } from './dns-plan.ts';
import type { Turn } from './turn.ts';
import type { DnsCall, DnsCallResult } from './types.ts';

// What a DNS call's result does to the cluster.
export function applyDnsResult(t: Turn, op: DnsCall['op'], fqdn: string | null, r: DnsCallResult): void {
  // A deleting cluster whose DNS domain MAAS no longer has: the record cannot exist, so its
  // deletion is done (CAPMAAS retries for ever and the finalizer never comes off). Outside
  // deletion the domain is still needed: it fails below, as any refusal does.
  if (r.kind === 'failed' && r.reason === 'domainNotFound' && t.phase === 'deleting' && (op === 'find' || op === 'delete')) {
    t.succeeded(op);
    // No record to follow, but the finalizer stays while any MaasMachine of the cluster exists
    // (CAPMAAS's reconcileDelete): deleting() waits for them, then finishes.
    if (op === 'find' && t.s.world.machines.length > 0) {
      t.s.record = null;
      t.s.recordAt = t.now;
      return;
    }
    const name = fqdn ?? t.s.record?.fqdn ?? t.s.object.status?.network?.dnsName ?? '';
    if (op === 'delete') t.effects.push({ type: 'notifyMembers' });
    t.s.record = null;
    finish(t, `MAAS has no DNS domain ${dnsDomainOf(name)}, so DNS record ${name} cannot exist: nothing to delete`);
    return;
  }
  if (r.kind === 'failed') {
    const message = `DNS ${op} failed: ${r.message}`;
    t.event('Warning', op === 'update' ? 'DNSUpdateFailed' : 'LoadBalancerFailed', message);
    if (op === 'update') t.condition(C.DNSAttached, { status: 'False', reason: D.DNSAttachPending, message });
    else t.condition(C.LoadBalancerReady, { status: 'False', reason: LB.LoadBalancerFailed, message });
    t.failed(op, message);
    return;
  }
  t.succeeded(op);
  t.s.recordAt = t.now;
  if (r.kind === 'record') {
    const changed = t.s.record !== null && t.s.record.id === r.record.id && !sameIps(t.s.record.ips, r.record.ips);
    if (op === 'create') t.event('Normal', 'DNSRecordCreated', `created DNS record ${r.record.fqdn}`);
    t.s.record = r.record;
    // Machines waiting on the record read it again (a delete waits for its detach).
    if (op === 'update' || changed) t.effects.push({ type: 'notifyMembers' });
    return;
  }
  // Nothing found, or deleted.
  if (op === 'delete') {
    t.effects.push({ type: 'notifyMembers' });
    finish(t);
    return;
  }
  t.s.record = null;
  // Deleting: no record to delete; deleting() ends the deletion once the machines are gone.
  if (t.phase === 'deleting') return;
  // CAPMAAS creates the record empty; the next step attaches the running control plane.
  if (fqdn) t.dns({ op: 'create', fqdn, ttl: t.s.config.dnsTtl, ips: [] });
}

function sameIps(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join(' ') === [...b].sort().join(' ');
}
