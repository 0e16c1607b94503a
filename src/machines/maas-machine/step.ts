import { formatProviderId, MAAS_MACHINE_FINALIZER } from '../../api/index.ts';
import type { MaasMachine } from '../../api/index.ts';
import { systemIdOf } from './events.ts';
import { ACTOR_CRASHED } from './failure.ts';
import { applyEvent } from './events.ts';
import { HANDLERS } from './states.ts';
import { Turn } from './turn.ts';
import type { MaasMachineConfig, MaasMachineEvent, MaasMachinePhase, MaasMachineState, MaasMachineStep, MaasMachineWorld } from './types.ts';
import { NO_WORLD } from './types.ts';
import { missingOwner, pausedBy } from './world.ts';

// A step never runs more handlers than this; each transition moves forward, so a loop means a bug.
const MAX_TRANSITIONS = 8;

/** The state of a MaasMachine seen for the first time (or again after a restart): resumes from its spec and status. */
export function initialMaasMachineState(object: MaasMachine, config: MaasMachineConfig, world: MaasMachineWorld = NO_WORLD): MaasMachineState {
  const { failureReason, failureMessage, ...rest } = object.status ?? { ready: false };
  // A crash marker is dropped: the machine is driven again (failure.ts, ACTOR_CRASHED).
  const crashed = failureReason === ACTOR_CRASHED;
  const status = { ...rest, ready: object.status?.ready ?? false, ...(!crashed && failureReason !== undefined ? { failureReason } : {}), ...(!crashed && failureMessage !== undefined ? { failureMessage } : {}) };
  const systemId = systemIdOf(object.spec);
  const phase: MaasMachinePhase = status.failureReason ? 'failed'
    : !systemId ? 'pending'
    : status.initialization?.provisioned ? 'deployed'
    : 'allocated';
  return {
    config, object, world, phase, status, systemId, noEarlierAllocation: false,
    view: null, fresh: false, nextPollAt: 0, powerRereads: 0, swapped: false, minKernelSet: false, staticLinked: false, dnsIps: null, nextDnsAt: 0,
    inFlight: null, seq: 0, slot: { phase: 'none' }, releaseRefused: false, retryAt: null, attempts: 0, failedOp: null, waiting: null, gone: false,
    // A MaasMachine no controller has written status for never asked for a slot.
    grantInherited: object.status !== undefined, grantOwnerWaitSince: null,
  };
}

// CAPMAAS's MaasMachine reconcile (reference/capmaas.md §2.3-§2.5) as a pure step: the event is
// applied, the Cluster API guards run (deletion, pause, owner), then the handler of the phase.
export function stepMaasMachine(state: MaasMachineState, event: MaasMachineEvent, now: number): MaasMachineStep {
  if (state.gone) return { state, effects: [] };
  const t = new Turn(state, now);
  if (!applyEvent(t, event)) return { state, effects: [] };
  drive(t);
  if (t.s.grantInherited) settleInheritedGrant(t, event);
  return t.finish();
}

// Asked for a slot: the acquire adopts the inherited grant (MAAS deploys or releases the machine
// still). Otherwise given back once MAAS has answered a call (a transient failure read nothing),
// or once the MaasMachine is gone: the phase MAAS's answer led to wants no slot. Paused, it makes
// no call to read MAAS with (CAPMAAS returns before any, reference/capmaas.md §2.3), perhaps for
// days: the grant goes back at once rather than idle to its TTL (issue 30.1). A pause is the
// user's choice to stop work; a deploy an earlier owner left running goes on at MAAS without a
// slot, and on unpause the machine asks for one before it acts again. Said in an event.
// Waiting for its owner Machine or Cluster (not yet in the node's cache) it makes no call either:
// the owner appearing lets the handlers read MAAS and decide as above, and if it has not appeared
// within config.inheritedGrantOwnerWaitMs the grant goes back as a paused machine's does.
function settleInheritedGrant(t: Turn, event: MaasMachineEvent): void {
  if (t.s.slot.phase !== 'none') {
    t.s.grantInherited = false;
    t.s.grantOwnerWaitSince = null;
    return;
  }
  const read = event.type === 'result' && event.result.kind !== 'transient';
  const paused = read || t.phase === 'gone' ? null : pausedBy(t.s.object, t.s.world);
  const ownerLate = read || t.phase === 'gone' || paused !== null || t.phase === 'deleting' ? null : missingOwner(t.s.object, t.s.world);
  if (ownerLate !== null) {
    const since = (t.s.grantOwnerWaitSince ??= t.now);
    const left = since + t.s.config.inheritedGrantOwnerWaitMs - t.now;
    if (left > 0) {
      t.requeue(left);
      return;
    }
  } else {
    t.s.grantOwnerWaitSince = null;
    if (!read && t.phase !== 'gone' && paused === null) return;
  }
  t.s.grantInherited = false;
  t.s.grantOwnerWaitSince = null;
  t.effects.push({ type: 'releaseGrant' });
  const why = paused ?? (ownerLate !== null ? `${ownerLate} for ${t.s.config.inheritedGrantOwnerWaitMs} ms` : null);
  if (why !== null) {
    t.effects.push({ type: 'event', severity: 'Normal', reason: 'CapacityReleased', message: `${why}: the MAAS capacity slot an earlier owner held for MaasMachine ${t.s.object.metadata.name} was given back; it asks for one again before it acts` });
  }
}

function drive(t: Turn): void {
  if (t.phase === 'gone') return;
  if (t.deleting && t.phase !== 'deleting') t.transition('deleting');
  const paused = pausedBy(t.s.object, t.s.world);
  if (paused) {
    pause(t, paused);
    return;
  }
  if (t.s.status.conditions?.some((c) => c.type === 'Paused' && c.status === 'True')) t.condition('Paused', { status: 'False', reason: 'NotPaused' });
  // Deletion goes on without the owner: the Machine may be gone first, and the finalizer must come off.
  const missing = t.phase === 'deleting' ? null : missingOwner(t.s.object, t.s.world);
  t.s.waiting = missing;
  if (missing) {
    if (t.s.slot.phase === 'waiting') t.releaseSlot();
    return;
  }
  if (t.s.inFlight) return;
  if (t.s.retryAt !== null && t.now < t.s.retryAt) {
    t.requeue(t.s.retryAt - t.now);
    return;
  }
  t.s.retryAt = null;
  ensureFinalizer(t);
  for (let i = 0; i < MAX_TRANSITIONS && HANDLERS[t.phase](t); i++);
}

// Cluster API's pause stops all work: no backend call, no slot asked for. A slot already covering
// a deploy MAAS is running stays held (it still counts against the MAAS limit); any other is
// given back.
function pause(t: Turn, why: string): void {
  t.s.waiting = why;
  t.condition('Paused', { status: 'True', reason: 'Paused', message: why });
  if (t.s.slot.phase === 'waiting' || (t.s.slot.phase === 'held' && t.phase !== 'deploying')) t.releaseSlot();
}

function ensureFinalizer(t: Turn): void {
  if (t.phase === 'deleting') return;
  const finalizers = t.s.object.metadata.finalizers ?? [];
  if (finalizers.includes(MAAS_MACHINE_FINALIZER)) return;
  t.effects.push({ type: 'addFinalizer', finalizer: MAAS_MACHINE_FINALIZER });
  t.s.object = { ...t.s.object, metadata: { ...t.s.object.metadata, finalizers: [...finalizers, MAAS_MACHINE_FINALIZER] } };
}

export const providerId = formatProviderId;
