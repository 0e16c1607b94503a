import test from 'ava';
import fc from 'fast-check';
import type { BareMetalHost, FirmwareIntent } from '../../src/api/index.ts';
import { GATED_OPERATIONS, initialState, isPaused, step } from '../../src/machines/bmh/index.ts';
import type { BmhEvent, BmhState, OpResult, Step } from '../../src/machines/bmh/index.ts';
import { lastCall, makeHost, settle, T0 } from '../support/bmh.ts';

// Invariants over random event sequences (fast-check): the machine is driven by arbitrary
// interleavings of wake-ups, results, slot notices and object changes.

type Action =
  | { kind: 'tick'; advanceMs: number }
  | { kind: 'result'; result: OpResult; jitter: number }
  | { kind: 'grant' } | { kind: 'queued' } | { kind: 'lost' } | { kind: 'secret'; key: string }
  | { kind: 'edit'; edit: Edit }
  | { kind: 'firmware'; intent: FirmwareIntent };
type Edit = 'pause' | 'unpause' | 'delete' | 'image' | 'noImage' | 'offline' | 'online' | 'detach' | 'attach' | 'reboot' | 'externally' | 'service';

// What the host's firmware companions may ask: nothing, settings (valid or not), updates, each
// with or without a HostUpdatePolicy that allows them on a provisioned host.
const firmwareIntent: fc.Arbitrary<FirmwareIntent> = fc.record({
  settings: fc.constantFrom<Record<string, string>[]>({}, { ProcTurboMode: 'Disabled' }, { ProcTurboMode: 'Enabled' }),
  updates: fc.constantFrom<FirmwareIntent['updates'][]>([], [{ component: 'bmc', url: 'http://fw/bmc.bin' }]),
  valid: fc.boolean(),
  onReboot: fc.record({ settings: fc.boolean(), updates: fc.boolean() }),
});

const opResult: fc.Arbitrary<OpResult> = fc.oneof(
  fc.constant<OpResult>({ kind: 'done', poweredOn: true }),
  fc.constant<OpResult>({ kind: 'done' }),
  fc.constant<OpResult>({ kind: 'continuing', afterMs: 1000 }),
  fc.constant<OpResult>({ kind: 'failed', message: 'boom' }),
  fc.constant<OpResult>({ kind: 'failed', message: 'no retry', retryAfterMs: null }),
  fc.constant<OpResult>({ kind: 'transient', message: 'reset' }),
  fc.constant<OpResult>({ kind: 'needsRegistration' }),
  fc.constant<OpResult>({ kind: 'waitForSecret', secret: 'metal3/worker-0-user-data', field: 'spec.userData', message: 'waiting for Secret metal3/worker-0-user-data (spec.userData)' }),
  fc.constant<OpResult>({ kind: 'waitForSecret', secret: 'metal3/worker-0-bmc', field: 'spec.bmc.credentialsName', message: 'BMC credentials Secret metal3/worker-0-bmc not found', retryAfterMs: 10_000 }),
);
const action: fc.Arbitrary<Action> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('tick' as const), advanceMs: fc.integer({ min: 0, max: 10_000_000 }) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('result' as const), result: opResult, jitter: fc.double({ min: 0, max: 1, noNaN: true }) }), weight: 6 },
  { arbitrary: fc.constant<Action>({ kind: 'grant' }), weight: 3 },
  { arbitrary: fc.constant<Action>({ kind: 'queued' }), weight: 1 },
  { arbitrary: fc.constant<Action>({ kind: 'lost' }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('secret' as const), key: fc.constantFrom('metal3/worker-0-user-data', 'metal3/worker-0-bmc', 'metal3/other') }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('edit' as const), edit: fc.constantFrom<Edit>('pause', 'unpause', 'delete', 'image', 'noImage', 'offline', 'online', 'detach', 'attach', 'reboot', 'externally', 'service') }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('firmware' as const), intent: firmwareIntent }), weight: 1 },
);

function edit(h: BareMetalHost, e: Edit): BareMetalHost {
  const annotations = { ...(h.metadata.annotations ?? {}) };
  const spec = { ...h.spec };
  const metadata = { ...h.metadata, generation: (h.metadata.generation ?? 1) + 1 };
  switch (e) {
    case 'pause': annotations['baremetalhost.metal3.io/paused'] = ''; break;
    case 'unpause': delete annotations['baremetalhost.metal3.io/paused']; break;
    case 'delete': metadata.deletionTimestamp = '2026-01-01T00:00:00Z'; break;
    case 'image': spec.image = { url: `http://images/${Math.random()}.qcow2`, checksum: 'c' }; break;
    case 'noImage': delete spec.image; break;
    case 'offline': spec.online = false; break;
    case 'online': spec.online = true; break;
    case 'detach': annotations['baremetalhost.metal3.io/detached'] = ''; break;
    case 'attach': delete annotations['baremetalhost.metal3.io/detached']; break;
    case 'reboot': annotations['reboot.metal3.io'] = ''; break;
    case 'service': annotations['metalfleet.io/service'] = ''; break;
    case 'externally': spec.externallyProvisioned = !spec.externallyProvisioned; break;
  }
  return { ...h, metadata: { ...metadata, annotations }, spec };
}

// Replays actions; calls check(prev, event, next) after every step.
function run(actions: Action[], check: (prev: BmhState, event: BmhEvent, next: Step) => void, from: BareMetalHost = makeHost()): { state: BmhState; now: number } {
  let state = initialState(from);
  let now = T0;
  let last: Step = step(state, { type: 'tick' }, now);
  check(state, { type: 'tick' }, last);
  state = last.state;
  for (const a of actions) {
    let event: BmhEvent;
    switch (a.kind) {
      case 'tick': now += a.advanceMs; event = { type: 'tick' }; break;
      case 'result': {
        const seq = state.inFlight?.seq ?? lastCall(last)?.seq ?? 0;
        event = { type: 'result', seq, result: a.result, jitter: a.jitter };
        break;
      }
      case 'grant': event = { type: 'slotGranted', grantId: `g${now}` }; break;
      case 'queued': event = { type: 'slotQueued', position: 1 }; break;
      case 'lost': event = { type: 'slotLost', grantId: state.slot.phase === 'held' ? state.slot.grantId : 'x', reason: 'expired' }; break;
      case 'edit': event = { type: 'observed', host: edit(state.host, a.edit) }; break;
      case 'secret': event = { type: 'secretChanged', key: a.key, change: 'appeared' }; break;
      case 'firmware': event = { type: 'firmwareIntent', intent: a.intent }; break;
    }
    const next = step(state, event, now);
    check(state, event, next);
    last = next;
    state = next.state;
  }
  return { state, now };
}

const RUNS = 300;
const runs = { numRuns: RUNS };

test('bmh property - no gated backend call without a granted slot', (t) => {
  let checked = 0;
  let gatedCalls = 0;
  fc.assert(fc.property(fc.array(action, { maxLength: 80 }), (actions) => {
    run(actions, (_prev, _event, next) => {
      for (const e of next.effects) {
        if (e.type === 'call' && GATED_OPERATIONS.has(e.args.op)) {
          if (next.state.slot.phase !== 'held') throw new Error(`${e.args.op} issued with slot ${next.state.slot.phase}`);
          gatedCalls += 1;
        }
      }
    });
    checked += 1;
  }), runs);
  t.is(checked, RUNS, 'every generated sequence was played to its end');
  t.true(gatedCalls > 0, 'some gated calls were issued, each with a held slot');
});

test('bmh property - a paused host produces no effects', (t) => {
  let checked = 0;
  let pausedSteps = 0;
  fc.assert(fc.property(fc.array(action, { maxLength: 80 }), (actions) => {
    run(actions, (prev, _event, next) => {
      if (!isPaused(prev.host) || !isPaused(next.state.host)) return;
      if (next.effects.length > 0) throw new Error(`paused host produced ${next.effects.map((e) => e.type).join(',')}`);
      pausedSteps += 1;
    });
    checked += 1;
  }), runs);
  t.is(checked, RUNS, 'every generated sequence was played to its end');
  t.true(pausedSteps > 0, 'some steps found the host paused before and after');
});

test('bmh property - deletion ends in finalizer removal when the provisioner succeeds', (t) => {
  let checked = 0;
  let deletedFromLive = 0;
  let finalizerRemoved = 0;
  fc.assert(fc.property(fc.array(action, { maxLength: 60 }), (actions) => {
    const { state, now } = run(actions, () => undefined);
    checked += 1;
    if (state.gone) return;
    let host = edit(state.host, 'delete');
    host = edit(host, 'unpause');
    const start = step({ ...state, retryAt: null }, { type: 'observed', host }, now);
    // Any call in flight from before answers first, then every call succeeds.
    const first = state.inFlight ? step(start.state, { type: 'result', seq: state.inFlight.seq, result: { kind: 'done' }, jitter: 0 }, now) : start;
    const { last, all } = settle(first.effects.length ? first : step(first.state, { type: 'tick' }, now + 1), () => ({ kind: 'done' }), now + 1);
    if (!last.state.gone) throw new Error(`not gone: ${last.state.host.status.provisioning.state}`);
    const removed = [...(first === start ? [] : start.effects), ...all].filter((e) => e.type === 'removeFinalizer').length;
    if (last.state.host.metadata.finalizers?.includes('baremetalhost.metal3.io') && removed !== 1) throw new Error(`finalizer removals: ${removed}`);
    deletedFromLive += 1;
    if (removed === 1) finalizerRemoved += 1;
  }), runs);
  t.is(checked, RUNS, 'every generated sequence was played');
  t.true(deletedFromLive > 0, 'some hosts still there after the sequence were deleted to the end');
  t.true(finalizerRemoved > 0, 'some deletions removed the finalizer exactly once');
});

test('bmh property - errorCount resets when an operation succeeds', (t) => {
  let checked = 0;
  let resets = 0;
  fc.assert(fc.property(fc.array(action, { maxLength: 80 }), (actions) => {
    run(actions, (prev, event, next) => {
      if (event.type !== 'result' || event.result.kind !== 'done') return;
      // Reads (power, firmware) fix nothing and clear no error.
      if (!prev.inFlight || prev.inFlight.seq !== event.seq || prev.inFlight.op === 'hardwareState' || prev.inFlight.op === 'firmware' || isPaused(prev.host)) return;
      if (next.state.host.status.errorCount !== 0) throw new Error(`errorCount ${next.state.host.status.errorCount} after ${prev.inFlight.op} succeeded`);
      if (prev.host.status.errorCount > 0) resets += 1;
    });
    checked += 1;
  }), runs);
  t.is(checked, RUNS, 'every generated sequence was played to its end');
  t.true(resets > 0, 'some successes came after errors and reset a non-zero errorCount');
});

test('bmh property - a gated call that finishes (done, failed, or waiting for a Secret) frees its slot in the same step', (t) => {
  let checked = 0;
  let freed = 0;
  fc.assert(fc.property(fc.array(action, { maxLength: 80 }), (actions) => {
    run(actions, (prev, event, next) => {
      if (event.type !== 'result' || !prev.inFlight || prev.inFlight.seq !== event.seq || isPaused(prev.host)) return;
      if (!GATED_OPERATIONS.has(prev.inFlight.op) || (event.result.kind !== 'done' && event.result.kind !== 'failed' && event.result.kind !== 'waitForSecret')) return;
      const released = next.effects.some((e) => e.type === 'releaseSlot');
      const requestedAgain = next.effects.some((e) => e.type === 'requestSlot');
      if (prev.slot.phase === 'held' && !released) throw new Error(`${prev.inFlight.op} ${event.result.kind} kept its slot`);
      if (next.state.slot.phase === 'held' && !requestedAgain) throw new Error('slot still held after a finished gated call');
      if (prev.slot.phase === 'held') freed += 1;
    });
    checked += 1;
  }), runs);
  t.is(checked, RUNS, 'every generated sequence was played to its end');
  t.true(freed > 0, 'some finished gated calls held a slot and released it');
});

test('bmh property - a host waiting for a data Secret holds no slot, and the wait never deprovisions or counts a failure', (t) => {
  let checked = 0;
  let dataWaits = 0;
  let secretAnswers = 0;
  fc.assert(fc.property(fc.array(action, { maxLength: 80 }), (actions) => {
    run(actions, (prev, event, next) => {
      const wait = next.state.waitingForSecret;
      if (wait && wait.field !== 'spec.bmc.credentialsName' && next.state.slot.phase !== 'none') throw new Error(`slot ${next.state.slot.phase} while waiting for ${wait.key}`);
      if (wait && wait.field !== 'spec.bmc.credentialsName') dataWaits += 1;
      if (event.type !== 'result' || event.result.kind !== 'waitForSecret' || !prev.inFlight || prev.inFlight.seq !== event.seq || isPaused(prev.host)) return;
      const before = prev.host.status;
      const after = next.state.host.status;
      if (after.provisioningFailCount !== before.provisioningFailCount) throw new Error('a Secret wait counted a provisioning failure');
      if (prev.inFlight.op === 'provision' && after.provisioning.state !== before.provisioning.state) throw new Error(`a Secret wait moved provisioning to ${after.provisioning.state}`);
      if (next.effects.some((e) => e.type === 'call')) throw new Error('a Secret wait called the backend at once');
      secretAnswers += 1;
    });
    checked += 1;
  }), runs);
  t.is(checked, RUNS, 'every generated sequence was played to its end');
  t.true(dataWaits > 0, 'some steps left the host waiting for a data Secret');
  t.true(secretAnswers > 0, 'some calls were answered with a Secret wait');
});

// A provisioned host, off: the first power-on with allowed changes services it.
const PROVISIONED = makeHost({ status: { poweredOn: false, provisioning: { state: 'provisioned', ID: 'node-1', image: makeHost().spec.image! } } });

// Registering and adopting a node the backend lost is recovery, as BMO adopts on every pass.
test('bmh property - servicing never provisions, deprovisions or prepares, and keeps the host provisioned', (t) => {
  let checked = 0;
  let serviceCalls = 0;
  // Told first of changes its policy allows, so that many sequences reach a servicing.
  const allowed: Action = { kind: 'firmware', intent: { settings: { ProcTurboMode: 'Disabled' }, updates: [], valid: true, onReboot: { settings: true, updates: true } } };
  fc.assert(fc.property(fc.array(action, { maxLength: 80 }), (actions) => {
    run([allowed, ...actions], (prev, _event, next) => {
      const calls = next.effects.flatMap((e) => (e.type === 'call' ? [e.args.op] : []));
      serviceCalls += calls.filter((op) => op === 'service').length;
      const wasServicing = prev.host.status.operationalStatus === 'servicing';
      if (!wasServicing) return;
      const bad = calls.find((op) => op === 'provision' || op === 'deprovision' || op === 'prepare');
      // A deletion or a detach may end servicing; nothing else does.
      if (bad && !next.state.host.metadata.deletionTimestamp) throw new Error(`${bad} called while servicing`);
      const state = next.state.host.status.provisioning.state;
      if (!next.state.host.metadata.deletionTimestamp && state !== prev.host.status.provisioning.state && state !== 'provisioned') throw new Error(`servicing moved the host to ${state}`);
    }, PROVISIONED);
    checked += 1;
  }), runs);
  t.is(checked, RUNS, 'every generated sequence was played to its end');
  t.true(serviceCalls > 0, 'some sequences serviced the host');
});
