import { lookForEarlierAllocation } from './adopt.ts';
import { failReleased } from './failure.ts';
import { releaseRequested } from './intents.ts';
import type { Turn } from './turn.ts';

/**
 * A release asked for by command (metalfleet.io/release), checked first by every phase that may
 * hold a MAAS machine: the machine goes back to MAAS under a release slot, as on delete, and the
 * MaasMachine then fails (results.ts). True when the request took the turn.
 */
export function releaseOnRequest(t: Turn): boolean {
  const requestId = releaseRequested(t.s.object);
  if (requestId === null) return false;
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
  if (!t.ensureSlot('release')) return true;
  t.call({ op: 'release', systemId });
  return true;
}
