import { lookForEarlierAllocation } from './adopt.ts';
import { takenBack } from './deleting.ts';
import { FAILURE_REASON, failReleased, failTakenBack } from './failure.ts';
import { HELD_BY_ANOTHER_USER, releasedBy, releaseRequested } from './intents.ts';
import type { Turn } from './turn.ts';
import type { MaasView } from './types.ts';

/**
 * A release asked for by command (metalfleet.io/release), checked first by every phase that may
 * hold a MAAS machine: the machine goes back to MAAS under a release slot, as on delete, and the
 * MaasMachine then fails (results.ts). True when the request took the turn.
 */
export function releaseOnRequest(t: Turn): boolean {
  const requestId = releaseRequested(t.s.object);
  if (requestId === null) {
    // The command was undone while MAAS refused it: nothing is left to check.
    t.s.releaseRefused = false;
    return false;
  }
  const systemId = t.s.systemId;
  if (!systemId) {
    // An owner that died before writing the providerID may have left a machine allocated to us:
    // adopted, it is released on the next turn.
    if (!t.s.noEarlierAllocation) {
      lookForEarlierAllocation(t);
      return true;
    }
    // Nothing allocated (and no allocation in flight: drive() waits for results): nothing to give back.
    failReleased(t, requestId, null);
    return true;
  }
  // MAAS refused the release (409 or 403): is the machine still ours to release? (releaseRefusedRead)
  if (t.s.releaseRefused) {
    t.call({ op: 'get', systemId });
    return true;
  }
  if (!t.ensureSlot('release')) return true;
  t.call({ op: 'release', systemId });
  return true;
}

/**
 * A fresh read after MAAS refused the commanded release (409, or 403), as the deletion reads
 * (deleting.ts). A 409 says the machine is in a state release does not act on: MAAS may have
 * taken it back already (or removed it: `gone`, the read answered 404), and then there is
 * nothing left to release, so the MaasMachine fails saying what MAAS did. MAAS answers a
 * non-admin key 403 when another MAAS user holds the machine now (release needs edit permission
 * on it), and one held by another user may show up after a 409 too: releasing is theirs or an
 * admin's to do, and retrying would never end, so the MaasMachine fails saying so. One still this
 * key's own and releasable (a lock, a permission MAAS will give back, a state that passes) is
 * released again after the backoff.
 */
export function releaseRefusedRead(t: Turn, view: MaasView | undefined, gone = false): void {
  t.s.releaseRefused = false;
  const requestId = releaseRequested(t.s.object) ?? '';
  if (gone || (view && takenBack(view))) {
    failTakenBack(t, requestId, gone ? null : view ?? null);
    return;
  }
  if (view?.owner && view.ownedBySelf === false) {
    heldByAnotherUser(t, requestId, view.owner);
    return;
  }
  t.backoff();
}

/**
 * The commanded release was refused (403, or 409) because another MAAS user holds the machine
 * (named by MAAS only to an admin key): failed for good, as a released machine is, with what to do.
 */
export function heldByAnotherUser(t: Turn, requestId: string, owner?: string): void {
  t.s.releaseRefused = false;
  const id = t.s.systemId ?? '';
  const message = `another MAAS user${owner ? ` (${owner})` : ''} holds MAAS machine ${id}; only its owner or a MAAS admin can release it. `
    + `The release asked by ${releasedBy(requestId)} was refused by MAAS and is not retried: metalfleet no longer holds the machine, so this MaasMachine has failed and Cluster API replaces it`;
  t.setStatus({ ready: false, failureReason: FAILURE_REASON, failureMessage: message });
  t.deployed('False', HELD_BY_ANOTHER_USER, message);
  t.event('Warning', HELD_BY_ANOTHER_USER, message);
  t.releaseSlot();
  t.transition('failed');
}
