import test from 'ava';
import fc from 'fast-check';
import { ERROR_TYPES, PROVISIONING_STATES } from '../../src/api/index.ts';
import type { ErrorType, ProvisioningState } from '../../src/api/index.ts';
import { DEFAULT_MACHINE_CONFIG, step } from '../../src/machines/bmh/index.ts';
import type { BmhEffect, BmhEvent, BmhState, CallArgs, OpResult, Step } from '../../src/machines/bmh/index.ts';
import { atState, lastCall, T0 } from '../support/bmh.ts';

// Issue 14 point 1: no hot loop, ever. From any host state (every provisioning state, deleted or
// not, detached by annotation or status, in error), whatever the backend answers, the machine
// never calls the backend sooner than the backoff it declared itself (state.retryAt, with a
// `requeue` effect to wake it), and an answer that lets the host make no progress is followed by
// no call before the minimum backoff (DEFAULT_MACHINE_CONFIG.transientBaseMs).

const MIN_BACKOFF_MS = DEFAULT_MACHINE_CONFIG.transientBaseMs;
const DETACHED = 'baremetalhost.metal3.io/detached';
const TEARDOWN: ReadonlySet<ProvisioningState> = new Set(['deprovisioning', 'powering off before delete', 'deleting']);

interface Start {
  state: ProvisioningState;
  deleted: boolean;
  detach: string | null;
  operationalStatus: 'OK' | 'detached' | 'error';
  errorType: ErrorType | '';
  errorCount: number;
  needsRegistration: boolean;
  image: boolean;
  online: boolean;
  disablePowerOff: boolean;
  finalizer: boolean;
}

const start: fc.Arbitrary<Start> = fc.record({
  state: fc.constantFrom(...PROVISIONING_STATES),
  deleted: fc.boolean(),
  detach: fc.constantFrom(null, null, '', '{"deleteAction":"delay"}', '{"force":true}', 'not json'),
  operationalStatus: fc.constantFrom('OK' as const, 'detached' as const, 'error' as const),
  errorType: fc.constantFrom<ErrorType | ''>('', ...ERROR_TYPES),
  errorCount: fc.integer({ min: 0, max: 6 }),
  needsRegistration: fc.boolean(),
  image: fc.boolean(),
  online: fc.boolean(),
  disablePowerOff: fc.boolean(),
  finalizer: fc.oneof({ arbitrary: fc.constant(true), weight: 9 }, { arbitrary: fc.constant(false), weight: 1 }),
});

function hostAt(s: Start): BmhState {
  const base = atState(s.state, {
    ...(s.deleted ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    annotations: s.detach === null ? {} : { [DETACHED]: s.detach },
    finalizers: s.finalizer ? ['baremetalhost.metal3.io'] : [],
    spec: { online: s.online, disablePowerOff: s.disablePowerOff && s.online, ...(s.image ? {} : { image: undefined }) },
    status: { operationalStatus: s.operationalStatus, errorType: s.errorType, errorCount: s.errorCount, errorMessage: s.errorType ? 'earlier failure' : '' },
  });
  return { ...base, needsRegistration: s.needsRegistration };
}

const result: fc.Arbitrary<OpResult> = fc.oneof(
  fc.constant<OpResult>({ kind: 'done' }),
  fc.boolean().map<OpResult>((poweredOn) => ({ kind: 'done', poweredOn, provisionerId: 'node-2' })),
  fc.constantFrom(0, 1, 3_000).map<OpResult>((afterMs) => ({ kind: 'continuing', afterMs })),
  fc.constantFrom(undefined, null, 0, 10_000).map<OpResult>((retryAfterMs) => (retryAfterMs === undefined ? { kind: 'failed', message: 'boom' } : { kind: 'failed', message: 'boom', retryAfterMs })),
  fc.constant<OpResult>({ kind: 'transient', message: 'connection reset' }),
  fc.constant<OpResult>({ kind: 'needsRegistration' }),
  fc.constant<OpResult>({ kind: 'needsRegistration' }),
  fc.constant<OpResult>({ kind: 'waitForSecret', secret: 'metal3/worker-0-bmc', field: 'spec.bmc.credentialsName', message: 'BMC credentials Secret metal3/worker-0-bmc not found', retryAfterMs: 10_000 }),
  fc.constant<OpResult>({ kind: 'waitForSecret', secret: 'metal3/worker-0-user-data', field: 'spec.userData', message: 'waiting for Secret metal3/worker-0-user-data (spec.userData)' }),
);

// How the simulated actor answers and wakes: a result after some latency, or a wake-up exactly
// when the machine asked, early (a spurious wake-up), or late.
interface Move { result: OpResult; latencyMs: number; wake: 'asked' | 'early' | 'late'; fraction: number }
const move: fc.Arbitrary<Move> = fc.record({
  result,
  latencyMs: fc.integer({ min: 0, max: 5_000 }),
  wake: fc.constantFrom('asked' as const, 'asked' as const, 'early' as const, 'late' as const),
  fraction: fc.double({ min: 0, max: 1, noNaN: true }),
});

const requeueOf = (effects: readonly BmhEffect[]): number | null => {
  const r = effects.find((e): e is Extract<BmhEffect, { type: 'requeue' }> => e.type === 'requeue');
  return r ? r.afterMs : null;
};

// An answer after which the host made no progress: it must not call again before the minimum.
function stalls(prev: BmhState, op: CallArgs['op'], r: OpResult): boolean {
  switch (r.kind) {
    case 'failed': case 'transient': case 'waitForSecret': return true;
    case 'continuing': return r.afterMs <= 0;
    // A vanished node while the host is torn down (the known bug); removing a node that is gone is done.
    case 'needsRegistration': return op !== 'delete' && op !== 'detach' && (Boolean(prev.host.metadata.deletionTimestamp) || TEARDOWN.has(prev.host.status.provisioning.state));
    default: return false;
  }
}

interface Trace { state: BmhState; now: number; calls: number }

// Plays the actor for one host; check runs after every step with the time of that step. answer
// turns a move into the backend's answer to the call in flight (by default the move's own).
function play(s0: BmhState, moves: readonly Move[], check: (prev: BmhState, event: BmhEvent, next: Step, now: number) => void, answer: (args: CallArgs, m: Move) => OpResult = (_a, m) => m.result): Trace {
  let now = T0;
  let state = s0;
  let last: Step = step(state, { type: 'tick' }, now);
  check(state, { type: 'tick' }, last, now);
  let pending = lastCall(last)?.args ?? null;
  let calls = pending ? 1 : 0;
  state = last.state;
  for (const m of moves) {
    if (state.gone) break;
    let event: BmhEvent;
    if (state.inFlight && pending) {
      now += m.latencyMs;
      event = { type: 'result', seq: state.inFlight.seq, result: answer(pending, m), jitter: m.fraction };
    } else if (state.slot.phase === 'waiting') {
      event = { type: 'slotGranted', grantId: `g${now}` };
    } else {
      const asked = requeueOf(last.effects) ?? (state.retryAt !== null && Number.isFinite(state.retryAt) ? Math.max(0, state.retryAt - now) : m.latencyMs);
      now += m.wake === 'asked' ? asked : m.wake === 'early' ? Math.floor(asked * m.fraction) : asked + m.latencyMs;
      event = { type: 'tick' };
    }
    const prev = state;
    last = step(prev, event, now);
    check(prev, event, last, now);
    const call = lastCall(last);
    if (call) {
      pending = call.args;
      calls += 1;
    }
    state = last.state;
  }
  return { state, now, calls };
}

test('bmh no-hot-loop property - no backend call comes sooner than the backoff the machine declared (state.retryAt)', (t) => {
  const runs = 400;
  let checked = 0;
  let callsAfterBackoff = 0;
  fc.assert(fc.property(start, fc.array(move, { maxLength: 120 }), (s, moves) => {
    play(hostAt(s), moves, (prev, event, next, now) => {
      const call = lastCall(next);
      const declared = prev.inFlight ? null : prev.retryAt;
      if (call && declared !== null && now < declared) {
        throw new Error(`${call.args.op} at +${now - T0} ms on ${event.type}, before the declared retry at +${declared - T0} ms (state ${prev.host.status.provisioning.state})`);
      }
      if (call && declared !== null && Number.isFinite(declared)) callsAfterBackoff += 1;
      // A declared wait is announced, so the actor wakes the host when it ends.
      const wait = next.state.retryAt;
      if (!next.state.inFlight && !next.state.gone && wait !== null && Number.isFinite(wait) && wait > now && next.effects.length > 0 && lastCall(next) === undefined) {
        const asked = requeueOf(next.effects);
        if (asked === null || now + asked > wait) throw new Error(`retry declared at +${wait - T0} ms but the wake-up asked for is ${asked === null ? 'none' : `+${now + asked - T0} ms`}`);
      }
    });
    checked += 1;
  }), { numRuns: runs });
  t.is(checked, runs, 'every generated history was played to its end');
  t.true(callsAfterBackoff > 0, 'some calls came after a declared backoff, and none before it');
});

test('bmh no-hot-loop property - after an answer that makes no progress (failure, transient, zero poll, a vanished node while torn down) no call comes before the minimum backoff', (t) => {
  const runs = 400;
  let checked = 0;
  let stalled = 0;
  fc.assert(fc.property(start, fc.array(move, { maxLength: 120 }), (s, moves) => {
    let notBefore: { at: number; why: string } | null = null;
    play(hostAt(s), moves, (prev, event, next, now) => {
      const call = lastCall(next);
      if (call && notBefore && now < notBefore.at) throw new Error(`${call.args.op} at +${now - T0} ms, ${notBefore.at - now} ms inside the minimum backoff after ${notBefore.why}`);
      if (call) notBefore = null;
      if (event.type !== 'result' || !prev.inFlight || prev.inFlight.seq !== event.seq) return;
      const moved = next.state.host.status.provisioning.state !== prev.host.status.provisioning.state || next.state.gone;
      if (moved || !stalls(prev, prev.inFlight.op, event.result)) return;
      const why = `${prev.inFlight.op} answered ${event.result.kind} in ${prev.host.status.provisioning.state}${prev.host.metadata.deletionTimestamp ? ' (deleted)' : ''}`;
      if (call) throw new Error(`${call.args.op} issued at once after ${why}`);
      notBefore = { at: now + MIN_BACKOFF_MS, why };
      stalled += 1;
    });
    checked += 1;
  }), { numRuns: runs });
  t.is(checked, runs, 'every generated history was played to its end');
  t.true(stalled > 0, 'some answers made no progress, so the minimum backoff was put to the test');
});

// A loop that needs no time to pass is the hot loop itself: with the clock stopped, every answer
// the backend can give ends in a wait after a bounded number of calls. One honest pass through
// registration, inspection, preparation, provisioning, power and deletion, with a re-registration,
// stays under a dozen (the most seen in 20 000 runs is 8); an unbounded loop goes to 200.
const FROZEN_CALL_BOUND = 16;

test(`bmh no-hot-loop property - with the clock stopped, no sequence of answers gets more than ${FROZEN_CALL_BOUND} backend calls out of a host`, (t) => {
  const runs = 300;
  let checked = 0;
  let most = 0;
  // A backend stuck in a pattern (the same answer, or a short cycle of answers) is what feeds a loop.
  fc.assert(fc.property(start, fc.array(result, { minLength: 1, maxLength: 4 }), (s, pattern) => {
    const frozen = Array.from({ length: 200 }, (_, i): Move => ({ result: pattern[i % pattern.length] ?? { kind: 'done' }, latencyMs: 0, wake: 'early', fraction: 0 }));
    const { calls } = play(hostAt(s), frozen, () => undefined);
    if (calls > FROZEN_CALL_BOUND) throw new Error(`${calls} calls without the clock moving`);
    checked += 1;
    most = Math.max(most, calls);
  }), { numRuns: runs });
  t.is(checked, runs, 'every answer pattern was played 200 answers long');
  t.true(most > 1 && most <= FROZEN_CALL_BOUND, `the most calls with the clock stopped: ${most}`);
});

// The known bug end to end: a deleted host whose Ironic node is gone. A small fake backend: with
// no node, every call but register says so, and removing the node is done (or a 404 on the way);
// a register that succeeds brings the node back. After the scripted answers run out the backend
// simply works. Failures that wait for a change (retryAfterMs null, a Secret) come from register
// only, as from the real adapters.
test('bmh no-hot-loop property - a deleted host whose backend node vanished is always deleted, and calls nothing within the minimum backoff after each loss', (t) => {
  const deleted = start.map((s) => ({ ...s, deleted: true, finalizer: true })).filter((s) => !(s.detach ?? '').includes('delay'));
  const runs = 300;
  let gone = 0;
  let losses = 0;
  fc.assert(fc.property(deleted, fc.array(move, { maxLength: 60 }), (s, moves) => {
    let nodeExists = false;
    const answer = (args: CallArgs, m: Move): OpResult => {
      const r = args.op === 'register' || (m.result.kind !== 'waitForSecret' && !(m.result.kind === 'failed' && m.result.retryAfterMs === null)) ? m.result : { kind: 'transient', message: 'reset' } as const;
      if (args.op === 'register') {
        if (r.kind === 'done') nodeExists = true;
        return r;
      }
      if (nodeExists) return r;
      if (args.op === 'delete' || args.op === 'detach') return m.fraction < 0.5 ? { kind: 'done' } : { kind: 'needsRegistration' };
      return { kind: 'needsRegistration' };
    };
    const works = Array.from({ length: 200 }, (): Move => ({ result: { kind: 'done' }, latencyMs: 10, wake: 'asked', fraction: 0 }));
    let lostAt: number | null = null;
    const { state } = play(hostAt(s), [...moves, ...works], (prev, event, next, now) => {
      const call = lastCall(next);
      if (call && lostAt !== null && now < lostAt + MIN_BACKOFF_MS) throw new Error(`${call.args.op} ${now - lostAt} ms after the node was reported gone`);
      if (call) lostAt = null;
      if (event.type === 'result' && prev.inFlight?.seq === event.seq && event.result.kind === 'needsRegistration' && !next.state.gone) {
        lostAt = now;
        losses += 1;
      }
    }, answer);
    if (!state.gone) throw new Error(`not deleted: ${state.host.status.provisioning.state}, ${state.host.status.operationalStatus}, retry at ${state.retryAt === null ? '-' : state.retryAt - T0}`);
    gone += 1;
  }), { numRuns: runs });
  t.is(gone, runs, 'every generated host was deleted');
  t.true(losses > 0, 'some backends reported the node gone mid-teardown');
});
