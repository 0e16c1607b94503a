import { parseProviderId } from '../../api/index.ts';
import { intentsChanged } from './intents.ts';
import { applyDnsResult, applyResult } from './results.ts';
import type { Turn } from './turn.ts';
import type { MaasMachineEvent } from './types.ts';

/** Applies one event to the turn; false when the event is stale and the step does nothing. */
export function applyEvent(t: Turn, e: MaasMachineEvent): boolean {
  switch (e.type) {
    case 'observed':
      // A command (or its undoing) is acted on now, on a fresh look at MAAS, not at the next poll.
      if (intentsChanged(t.s.object, e.object)) {
        t.s.fresh = false;
        t.s.nextPollAt = Math.min(t.s.nextPollAt, t.now);
      }
      t.s.object = e.object;
      t.s.world = e.world;
      adoptIds(t);
      return true;
    case 'tick':
    case 'slotQueued':
      return true;
    case 'result': {
      const inFlight = t.s.inFlight;
      if (!inFlight || inFlight.seq !== e.seq || inFlight.op === 'dnsLookup') return false;
      t.s.inFlight = null;
      applyResult(t, inFlight.op, e.result);
      return true;
    }
    case 'dnsResult':
      if (t.s.inFlight?.op !== 'dnsLookup' || t.s.inFlight.seq !== e.seq) return false;
      t.s.inFlight = null;
      applyDnsResult(t, e.result);
      return true;
    // Only a machine waiting on the record reads it again: one deleting, or a running control
    // plane not yet attached (which looks at MAAS again first).
    case 'dnsChanged':
      if (t.phase === 'deleting') t.s.dnsIps = null;
      else if (t.phase === 'deployed' && t.s.status.dnsAttached !== true) {
        t.s.dnsIps = null;
        t.s.nextPollAt = Math.min(t.s.nextPollAt, t.now);
      }
      return true;
    case 'slotGranted':
      if (t.s.slot.phase === 'waiting') t.s.slot = { phase: 'held', op: t.s.slot.op, grantId: e.grantId };
      return true;
    case 'slotLost':
      if (t.s.slot.phase === 'held' && t.s.slot.grantId === e.grantId) t.s.slot = { phase: 'none' };
      return true;
  }
}

// IDs found on the object (a restore, a move to another controller) are taken when we have none.
// Ours are never replaced, and an object seen without IDs does not undo an allocation of ours:
// our own write of them may simply not have landed yet.
function adoptIds(t: Turn): void {
  if (t.s.systemId || t.s.inFlight?.op === 'allocate') return;
  const id = systemIdOf(t.s.object.spec);
  if (!id) return;
  t.s.systemId = id;
  t.s.view = null;
  t.s.fresh = false;
  if (t.phase === 'pending') t.transition('allocated');
}

export function systemIdOf(spec: { systemID?: string | undefined; providerID?: string | undefined }): string | null {
  if (spec.systemID) return spec.systemID;
  if (!spec.providerID) return null;
  const parsed = parseProviderId(spec.providerID);
  return parsed.ok ? parsed.systemId : null;
}
