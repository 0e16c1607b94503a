import {
  API_SERVER_AVAILABLE_REASONS as API, LOAD_BALANCER_READY_REASONS as LB, MAAS_CLUSTER_FINALIZER, MAAS_CONDITIONS as C,
} from '../../api/index.ts';
import type { ControlPlaneVip } from '../../api/index.ts';
import { dnsNameFor, dnsSuffixOf } from './dns-plan.ts';
import { controlPlaneMembers } from './members.ts';
import { apiPort } from './record.ts';
import type { Turn } from './turn.ts';

// A MaasCluster whose endpoint is a virtual IP (spec.controlPlaneVIP; CAPMAAS #86): MAAS reserves
// the address (ipaddresses/ op=reserve), the endpoint is that address, kube-vip on the control-plane
// machines announces it (their user data carries the static pod: maas-machine/control-plane-vip.ts),
// and no DNS record follows the machines. Deleting the cluster releases the address once its
// machines are gone.

export function vipOf(t: Turn): ControlPlaneVip | undefined {
  return t.s.object.spec.controlPlaneVIP;
}

export function reservedVip(t: Turn): string | undefined {
  return t.s.status.controlPlaneVIP?.address ?? t.s.object.status?.controlPlaneVIP?.address;
}

/**
 * The reservation's hostname: the API name a DNS cluster would have had (from the MaasCluster's
 * identity), so MAAS's DNS answers it with the VIP, and an owner that died before writing the
 * address to status finds the reservation again by that name.
 */
export function vipHostname(t: Turn): string {
  return dnsNameFor({
    statusName: t.s.object.status?.network?.dnsName ?? t.s.status.network?.dnsName,
    cluster: t.s.world.cluster?.metadata.name ?? t.s.object.metadata.name,
    dnsDomain: t.s.object.spec.dnsDomain,
    suffix: dnsSuffixOf(t.s.object),
  });
}

/** No VIP known yet: find one a former owner reserved, else reserve it. */
export function vipPending(t: Turn): boolean {
  const vip = vipOf(t);
  if (!vip) return false;
  if (reservedVip(t)) {
    t.transition('active');
    return true;
  }
  const fqdn = vipHostname(t);
  const where = vip.address ? `${vip.address} in ${vip.subnet}` : `an address of ${vip.subnet}`;
  if (!t.s.status.conditions?.some((c) => c.type === C.LoadBalancerReady && c.status === 'False')) {
    t.condition(C.LoadBalancerReady, { status: 'False', reason: LB.WaitForVIP, message: `reserving ${where} in MAAS as the control-plane VIP` });
  }
  if (!t.s.vipLooked) {
    t.ip({ op: 'findVip', fqdn, subnet: vip.subnet, ...(vip.address ? { address: vip.address } : {}) });
    return false;
  }
  t.ip({ op: 'reserveVip', subnet: vip.subnet, ...(vip.address ? { address: vip.address } : {}), hostname: fqdn });
  return false;
}

/** The VIP is reserved: publish it as the endpoint, and check now and then that MAAS still holds it. */
export function vipActive(t: Turn): boolean {
  const vip = vipOf(t);
  const address = reservedVip(t);
  if (!vip || !address) {
    t.transition('pending');
    return true;
  }
  if (t.s.recordAt === null || t.now - t.s.recordAt >= t.s.config.resyncMs) {
    t.ip({ op: 'findVip', fqdn: vipHostname(t), subnet: vip.subnet, address });
    return false;
  }
  const running = controlPlaneMembers(t.s.world.machines).filter((m) => m.running && !m.deleting);
  t.condition(C.LoadBalancerReady, { status: 'True', reason: LB.LoadBalancerReady });
  // No record follows the machines: the DNSAttached condition is a DNS cluster's.
  t.dropCondition(C.DNSAttached);
  // metalfleet does not dial the workload API: the VIP counts as available once a running
  // control-plane machine can hold it.
  if (running.length > 0) t.condition(C.APIServerAvailable, { status: 'True', reason: API.APIServerAvailable });
  else t.condition(C.APIServerAvailable, { status: 'False', reason: API.APIServerNotReady, message: `no control-plane machine runs yet to hold the VIP ${address}` });
  t.setStatus({
    ready: true,
    initialization: { provisioned: true },
    network: { dnsName: vipHostname(t) },
    controlPlaneVIP: { address, subnet: vip.subnet },
    failureDomains: (t.s.object.spec.failureDomains ?? []).map((name) => ({ name, controlPlane: true })),
  });
  const port = apiPort(t);
  const endpoint = t.s.object.spec.controlPlaneEndpoint;
  if (endpoint?.host !== address || endpoint.port !== port) t.effects.push({ type: 'writeSpec', patch: { controlPlaneEndpoint: { host: address, port } } });
  t.requeue(t.s.recordAt + t.s.config.resyncMs - t.now);
  return false;
}

/** Deleting: once every machine is gone, the VIP is released (one a former owner reserved is found first). */
export function vipDeleting(t: Turn): boolean {
  if (!(t.s.object.metadata.finalizers ?? []).includes(MAAS_CLUSTER_FINALIZER)) {
    t.transition('gone');
    return false;
  }
  const left = t.s.world.machines.length;
  if (left > 0) {
    // The VIP stays reserved while any machine of the cluster may still hold it.
    t.s.waiting = `waiting for ${left} MaasMachine(s) of the cluster to be deleted before releasing the VIP`;
    t.requeue(t.s.config.deleteWaitMs);
    return false;
  }
  t.s.waiting = null;
  const address = reservedVip(t);
  if (address) {
    t.ip({ op: 'releaseVip', address });
    return false;
  }
  const vip = vipOf(t);
  if (vip && !t.s.vipLooked) {
    t.ip({ op: 'findVip', fqdn: vipHostname(t), subnet: vip.subnet, ...(vip.address ? { address: vip.address } : {}) });
    return false;
  }
  finishVip(t, null);
  return false;
}

export function finishVip(t: Turn, released: string | null): void {
  t.effects.push({ type: 'removeFinalizer', finalizer: MAAS_CLUSTER_FINALIZER });
  t.event('Normal', 'SuccessfulDelete', released ? `released the control-plane VIP ${released}` : 'no control-plane VIP to release');
  t.transition('gone');
}
