import test from 'ava';
import { errorBackoffMs, initialState, step, DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import type { CallArgs } from '../../src/machines/bmh/index.ts';
import type { ErrorType } from '../../src/api/index.ts';
import { atState, calls, done, grant, makeHost, observe, reply, T0, tick } from '../support/bmh.ts';

// reference/bmo.md §1.5 and §4: error types, backoff, retries with restartOnFailure.

test('bmh - backoff is 2^n minutes minus up to half, capped at 2^9', (t) => {
  const c = DEFAULT_MACHINE_CONFIG;
  t.is(errorBackoffMs(1, 0, c), 120_000);
  t.is(errorBackoffMs(1, 1, c), 60_000);
  t.is(errorBackoffMs(3, 0, c), 480_000);
  t.is(errorBackoffMs(9, 0, c), 512 * 60_000);
  t.is(errorBackoffMs(20, 0, c), 512 * 60_000);
  t.is(errorBackoffMs(20, 1, c), 256 * 60_000);
});

const failing: Array<[string, () => ReturnType<typeof tick>, ErrorType, CallArgs['op']]> = [
  ['registration', () => tick(initialState(makeHost())), 'registration error', 'register'],
  ['inspection', () => grant(tick(atState('inspecting')).state), 'inspection error', 'inspect'],
  ['preparation', () => tick(atState('preparing')), 'preparation error', 'prepare'],
  ['deprovisioning', () => grant(tick(atState('deprovisioning', { spec: { image: undefined } })).state), 'provisioning error', 'deprovision'],
];

for (const [name, start, errorType, op] of failing) {
  test(`bmh - a failed ${name} records ${errorType}, backs off, and retries with restartOnFailure`, (t) => {
    const s0 = start();
    const s1 = reply(s0, { kind: 'failed', message: `${name} broke` }, T0, 0.5);
    const st = s1.state.host.status;
    t.is(st.errorType, errorType);
    t.is(st.errorMessage, `${name} broke`);
    t.is(st.operationalStatus, 'error');
    t.is(st.errorCount, 1);
    t.true(s1.effects.some((e) => e.type === 'event' && e.severity === 'Warning'));
    // Nothing happens before the backoff ends, even on a wake-up.
    t.deepEqual(calls(tick(s1.state, T0 + 60_000).effects), []);
    let s2 = tick(s1.state, T0 + 90_000);
    if (s2.effects.some((e) => e.type === 'requestSlot')) s2 = grant(s2.state, T0 + 90_000);
    const retry = calls(s2.effects).find((c) => c.op === op) as { restartOnFailure?: boolean } | undefined;
    t.truthy(retry);
    t.true(retry?.restartOnFailure);
    // Success clears the error and the count.
    const s3 = reply(s2, done, T0 + 90_000);
    t.is(s3.state.host.status.errorCount, 0);
    t.is(s3.state.host.status.errorType, '');
    t.is(s3.state.host.status.operationalStatus, 'OK');
  });
}

test('bmh - a failed power change records a power management error and retries with force', (t) => {
  const base = atState('provisioned', { spec: { online: false }, status: { poweredOn: true, provisioning: { state: 'provisioned', ID: 'n', image: makeHost().spec.image } } });
  const s0 = tick(base);
  t.deepEqual(calls(s0.effects), [{ op: 'powerOff', mode: 'soft', force: false }]);
  const s1 = reply(s0, { kind: 'failed', message: 'BMC timeout' }, T0, 0);
  t.is(s1.state.host.status.errorType, 'power management error');
  // After the backoff the power state is read first, then the retry is hard and forced.
  const s2 = tick(s1.state, T0 + 120_000);
  t.deepEqual(calls(s2.effects), [{ op: 'hardwareState' }]);
  const s3 = reply(s2, { kind: 'done', poweredOn: true }, T0 + 120_000);
  t.deepEqual(calls(s3.effects), [{ op: 'powerOff', mode: 'hard', force: true }]);
});

test('bmh - a failed adopt after re-registration records a provisioned registration error', (t) => {
  const base = atState('provisioned', { status: { provisioning: { state: 'provisioned', ID: 'n', image: makeHost().spec.image } } });
  const s0 = tick(base, T0 + 61_000);
  t.deepEqual(calls(s0.effects).map((c) => c.op), ['hardwareState']);
  const s1 = reply(s0, { kind: 'needsRegistration' }, T0 + 61_000);
  t.deepEqual(calls(s1.effects).map((c) => c.op), ['register']);
  const s2 = reply(s1, done, T0 + 61_000);
  t.deepEqual(calls(s2.effects).map((c) => c.op), ['adopt']);
  const s3 = reply(s2, { kind: 'failed', message: 'adopt failed' }, T0 + 61_000);
  t.is(s3.state.host.status.errorType, 'provisioned registration error');
  t.is(s3.state.host.status.provisioning.state, 'provisioned');
});

test('bmh - a lost backend node is registered again and adopted, never provisioned twice', (t) => {
  const base = atState('provisioned', { status: { provisioning: { state: 'provisioned', ID: 'n', image: makeHost().spec.image } } });
  const s0 = tick(base, T0 + 61_000);
  const s1 = reply(s0, { kind: 'needsRegistration' }, T0 + 61_000);
  const s2 = reply(s1, done, T0 + 61_000);
  const s3 = reply(s2, done, T0 + 61_000);
  t.is(s3.state.host.status.provisioning.state, 'provisioned');
  t.false(s3.state.needsAdopt);
  t.false([s1, s2, s3].some((s) => calls(s.effects).some((c) => c.op === 'provision')));
});

test('bmh - a transient error retries fast without touching status', (t) => {
  const s0 = tick(initialState(makeHost()));
  const s1 = reply(s0, { kind: 'transient', message: 'connection reset' });
  t.false(s1.effects.some((e) => e.type === 'writeStatus'));
  t.deepEqual(s1.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 50 }]);
  t.deepEqual(calls(tick(s1.state, T0 + 50).effects).map((c) => c.op), ['register']);
});

test('bmh - an unknown BMC scheme is a registration error with no retry until the host changes', (t) => {
  const host = makeHost({ spec: { bmc: { address: 'foo://10.0.0.1', credentialsName: 'c' } } });
  const s0 = tick(initialState(host));
  t.is(s0.state.host.status.errorType, 'registration error');
  t.regex(s0.state.host.status.errorMessage, /^spec\.bmc\.address: .*foo/);
  t.deepEqual(calls(s0.effects), []);
  t.false(s0.effects.some((e) => e.type === 'requeue'));
  t.deepEqual(calls(tick(s0.state, T0 + 10 * 3_600_000).effects), []);
  const fixed = observe(s0.state, makeHost());
  t.deepEqual(calls(fixed.effects).map((c) => c.op), ['register']);
});

test('bmh - an empty BMC address is a registration error', (t) => {
  const s0 = tick(initialState(makeHost({ spec: { bmc: { address: '', credentialsName: 'c' } } })));
  t.is(s0.state.host.status.errorType, 'registration error');
  t.is(s0.state.host.status.errorMessage, 'BMC address is empty');
});

test('bmh - a failure with no retry waits for a change; one with retryAfterMs requeues then', (t) => {
  const s0 = tick(initialState(makeHost()));
  const never = reply(s0, { kind: 'failed', message: 'Secret has an empty password', retryAfterMs: null });
  t.false(never.effects.some((e) => e.type === 'requeue'));
  const soon = reply(s0, { kind: 'failed', message: 'Secret not found', retryAfterMs: 10_000 });
  t.deepEqual(soon.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 10_000 }]);
});

test('bmh - provisioning stops at the retry limit until the image changes', (t) => {
  const image = makeHost().spec.image;
  const base = atState('available', { status: { poweredOn: true, provisioningFailCount: 5, lastAttemptedImage: image } });
  const s0 = tick(base);
  t.false(s0.effects.some((e) => e.type === 'requestSlot'));
  t.is(s0.state.host.status.errorType, 'provisioning error');
  t.regex(s0.state.host.status.errorMessage, /failed 5 times \(limit 5\)/);
  const newImage = observe(s0.state, { ...s0.state.host, spec: { ...s0.state.host.spec, image: { url: 'http://images/fixed.qcow2', checksum: 'f' } } });
  t.is(newImage.state.host.status.provisioningFailCount, 0);
  t.true(newImage.effects.some((e) => e.type === 'requestSlot'));
});

test('bmh - the retry limit is configurable and 0 means unlimited', (t) => {
  const image = makeHost().spec.image;
  const s = tick(atState('available', { status: { provisioningFailCount: 50, lastAttemptedImage: image } }, { maxProvisioningRetries: 0 }));
  t.true(s.effects.some((e) => e.type === 'requestSlot'));
});

test('bmh - a result for an older call is ignored', (t) => {
  const s0 = tick(initialState(makeHost()));
  const stale = step(s0.state, { type: 'result', seq: 999, result: done, jitter: 0 }, T0);
  t.is(stale.state, s0.state);
  t.deepEqual(stale.effects, []);
});

test('bmh - a registration error retries at once when the host is re-delivered unchanged (its Secret changed)', (t) => {
  const s0 = tick(initialState(makeHost()));
  const s1 = reply(s0, { kind: 'failed', message: 'BMC credentials Secret metal3/worker-0-bmc not found', retryAfterMs: 10_000 });
  t.deepEqual(calls(observe(s1.state, makeHost(), T0 + 1).effects).map((c) => c.op), ['register']);
  // Other errors keep their backoff on a plain re-delivery.
  const p0 = tick(atState('preparing'));
  const p1 = reply(p0, { kind: 'failed', message: 'clean failed' });
  t.deepEqual(calls(observe(p1.state, p1.state.host, T0 + 1).effects), []);
});
