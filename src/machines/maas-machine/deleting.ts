import { DNS_ATTACHED_REASONS as D, MAAS_MACHINE_FINALIZER, MACHINE_DEPLOYED_REASONS as R } from '../../api/index.ts';
import { lookForEarlierAllocation } from './adopt.ts';
import { readDns } from './dns-attach.ts';
import type { Turn } from './turn.ts';
import type { MaasView } from './types.ts';
import { dnsNameOf } from './world.ts';

// Deleting a MaasMachine (reference/capmaas.md §2.5): a control-plane machine first leaves the
// API record, then the machine is released with a slot, then the finalizer comes off.
//
// Why the machine waits instead of detaching itself: the MaasCluster is the record's single
// writer and already drops deleting members from it (its plan, maas-cluster/dns-plan.ts). The
// machine reads the record and releases only once its address is gone from it; the cluster wakes
// it (a dnsChanged event) after each change, and it also looks again every dnsPollMs. A machine
// writing the record too would race the cluster's whole-set PUT and could be put back after it
// left. Being pure, the wait is a table test: record holds the address -> no release.
export function deleting(t: Turn): boolean {
  if (!(t.s.object.metadata.finalizers ?? []).includes(MAAS_MACHINE_FINALIZER)) {
    t.releaseSlot();
    t.transition('gone');
    return false;
  }
  if (!t.s.systemId) {
    // An owner that died before writing the providerID may have left a machine allocated to us.
    if (!t.s.noEarlierAllocation) {
      lookForEarlierAllocation(t);
      return false;
    }
    finishDeletion(t, 'no MAAS machine to release');
    return false;
  }
  if (t.controlPlane && !t.s.world.maasCluster?.spec.controlPlaneVIP) {
    const reading = readDns(t);
    if (reading === 'lookup') return false;
    if (reading === 'attached') {
      t.dnsAttached('False', D.DNSDetachPending, `waiting for the cluster to remove this machine from ${dnsNameOf(t.s.world) ?? ''} before releasing it`);
      t.requeue(t.s.nextDnsAt - t.now);
      return false;
    }
    if (t.s.status.dnsAttached) t.setStatus({ dnsAttached: false });
  }
  // A release MAAS refused (409, or 403): is the machine still ours to release? (results.ts)
  if (t.s.releaseRefused) {
    t.call({ op: 'get', systemId: t.s.systemId });
    return false;
  }
  if (!t.ensureSlot('release')) return false;
  t.call({ op: 'release', systemId: t.s.systemId });
  return false;
}

// The states MAAS's op=release acts on (capmaas.md §4.2; RELEASABLE_STATUSES in MAAS's
// models/node.py); from any other but Ready and Releasing it answers 409.
const RELEASABLE: ReadonlySet<string> = new Set(['Allocated', 'Reserved', 'Broken', 'Deploying', 'Deployed', 'Failed deployment', 'Failed disk erasing', 'Releasing failed']);

/**
 * MAAS has taken the machine back (put it back to New, recommissioned it, ...): it is in a state
 * release does not act on and nobody holds it. An owner MAAS names, or one the driver does not
 * say, is not read as taken back: the release is retried.
 */
export function takenBack(view: MaasView): boolean {
  return !RELEASABLE.has(view.statusName) && view.owner === null;
}

/**
 * A fresh read after MAAS refused the deletion's release (409, or 403 to a non-admin key): a machine
 * MAAS has taken back has nothing left to release, and one another MAAS user holds is not ours to
 * release, so the deletion is done; one still ours is released again after the backoff. CAPMAAS
 * retries the release for ever.
 */
export function releaseRefusedRead(t: Turn, view: MaasView | undefined): void {
  t.s.releaseRefused = false;
  if (view && takenBack(view)) {
    finishDeletion(t, `MAAS machine ${view.systemId} is ${view.statusName} and allocated to nobody: MAAS has already taken it back, nothing to release`);
    return;
  }
  // Another MAAS user holds it now (an admin released it and someone allocated it): releasing it
  // would take it from them, and retrying would never end.
  if (view?.owner && view.ownedBySelf === false) {
    finishDeletion(t, `MAAS machine ${view.systemId} (${view.statusName}) now belongs to MAAS user ${view.owner}: metalfleet no longer holds it and leaves it to them, nothing to release`, 'MachineHeldByAnotherUser');
    return;
  }
  t.backoff();
}

/**
 * The read after a refused release was refused too (403) and the key's own machines listing lacks
 * the machine: MAAS lets a non-admin view only unowned machines and its own, so another MAAS user
 * holds it, one MAAS does not name. As for a named one, the deletion is done.
 */
export function heldByUnnamedUser(t: Turn): void {
  t.s.releaseRefused = false;
  const id = t.s.systemId ?? '';
  finishDeletion(t, `MAAS machine ${id} is held by another MAAS user (MAAS refuses this API key's user both its release and a read of it, and does not say whose it is): metalfleet no longer holds it and leaves it to them, nothing to release. If it should go back to MAAS, release it there as its owner or an admin`, 'MachineHeldByAnotherUser');
}

/** The deletion is done; `reason` names an end that is not a release (a Warning event). */
export function finishDeletion(t: Turn, why: string, reason?: string): void {
  t.releaseSlot();
  t.setStatus({ ready: false });
  t.deployed('False', R.Deleted);
  t.effects.push({ type: 'removeFinalizer', finalizer: MAAS_MACHINE_FINALIZER });
  if (reason === undefined) t.event('Normal', 'SuccessfulRelease', why);
  else t.event('Warning', reason, why);
  t.transition('gone');
}
