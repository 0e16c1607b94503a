import { LOAD_BALANCER_READY_REASONS as LB, MAAS_CONDITIONS as C } from '../../api/index.ts';
import { HELD_BY_ANOTHER_USER, heldByAnotherUser, heldMemberMessage } from './held.ts';
import type { Turn } from './turn.ts';
import type { IpCallResult, MaasClusterState } from './types.ts';
import { finishVip, vipOf } from './vip.ts';

// What an ipaddresses/ or interfaces answer does to the cluster.
export function applyIpResult(t: Turn, inFlight: NonNullable<MaasClusterState['inFlight']>, r: IpCallResult): void {
  const op = inFlight.op;
  if (r.kind === 'failed' && op === 'interfaces' && inFlight.nicsKey && inFlight.systemId && heldByAnotherUser(r)) {
    heldMember(t, inFlight.nicsKey, inFlight.systemId);
    return;
  }
  if (r.kind === 'failed') {
    const vip = vipOf(t);
    const message = op === 'interfaces'
      ? `reading the interfaces of MAAS machine ${inFlight.systemId ?? ''} failed: ${r.message}`
      : op === 'releaseVip'
        ? `releasing the control-plane VIP failed: ${r.message}`
        : `reserving the control-plane VIP${vip?.address ? ` ${vip.address}` : ''} in subnet ${vip?.subnet ?? ''} failed: ${r.message}`;
    t.event('Warning', op === 'releaseVip' ? 'VIPReleaseFailed' : op === 'interfaces' ? 'InterfacesReadFailed' : 'VIPReserveFailed', message);
    if (op === 'findVip' || op === 'reserveVip') t.condition(C.LoadBalancerReady, { status: 'False', reason: LB.LoadBalancerFailed, message });
    // Retried with backoff either way: a taken address may be freed, a MAAS outage ends.
    t.failed(op, r.retryable ? message : `${message} (fix the cause: it is retried with backoff)`);
    return;
  }
  t.succeeded(op);
  const vip = vipOf(t);
  switch (op) {
    case 'interfaces':
      if (r.kind === 'interfaces' && inFlight.nicsKey) t.s.nics = { ...t.s.nics, [inFlight.nicsKey]: { at: t.now, nics: r.nics ?? [] } };
      return;
    case 'findVip':
      t.s.vipLooked = true;
      t.s.recordAt = t.now;
      if (r.kind === 'vip' && vip) {
        t.setStatus({ controlPlaneVIP: { address: r.address, subnet: vip.subnet } });
        return;
      }
      // An active cluster whose reservation MAAS no longer holds takes the same address back.
      if (t.phase === 'active' && vip && t.s.status.controlPlaneVIP) {
        const address = t.s.status.controlPlaneVIP.address;
        t.event('Warning', 'VIPLost', `MAAS no longer holds the reservation of the control-plane VIP ${address}; reserving it again`);
        t.ip({ op: 'reserveVip', subnet: vip.subnet, address, hostname: inFlight.fqdn ?? '' });
      }
      return;
    case 'reserveVip':
      if (r.kind === 'vip' && vip) {
        t.s.recordAt = t.now;
        t.setStatus({ controlPlaneVIP: { address: r.address, subnet: vip.subnet } });
        t.event('Normal', 'VIPReserved', `reserved ${r.address} in ${vip.subnet} as the control-plane VIP`);
      }
      return;
    case 'releaseVip': {
      const released = t.s.status.controlPlaneVIP?.address ?? null;
      const { controlPlaneVIP: _gone, ...rest } = t.s.status;
      t.s.status = rest;
      t.s.vipLooked = true;
      if (t.phase === 'deleting') finishVip(t, released);
      return;
    }
    default:
      return;
  }
}

/**
 * Another MAAS user holds a control-plane machine: a refusal no retry ends, so it holds up neither
 * the record nor the other members (no backoff); it is read again after resyncMs. CAPMAAS's
 * cluster reads no machine: it publishes what each MaasMachine's status says (running, not
 * deleting), so the address read while the machine was ours stays until its MaasMachine stops
 * running (fails, is released or deleted); one never read has none to publish. Said once, in an
 * event; DNSAttached says it while it lasts (publish.ts).
 */
function heldMember(t: Turn, key: string, systemId: string): void {
  t.succeeded('interfaces');
  const before = t.s.nics[key];
  t.s.nics = { ...t.s.nics, [key]: { at: t.now, nics: before?.nics ?? null, held: true } };
  if (before?.held) return;
  const member = t.s.world.machines.find((m) => (m.spec.systemID ?? m.spec.providerID?.split('/').pop()) === systemId);
  const name = member?.metadata.name;
  t.event('Warning', HELD_BY_ANOTHER_USER, heldMemberMessage({ key: name ?? systemId, name, systemId, ips: [], running: true, deleting: false }, (before?.nics ?? null) !== null));
}
