import test from 'ava';
import fc from 'fast-check';
import type { BareMetalHost } from '../../src/api/index.ts';
import type { BmhEffect, OpResult, Step } from '../../src/machines/bmh/index.ts';
import { REPROVISION, step } from '../../src/machines/bmh/index.ts';
import { atState, calls, done, grant, makeHost, observe, reply, settle, T0, tick, types } from '../support/bmh.ts';

// metalfleet.io/reprovision: deprovision through the normal (gated) path, then deploy the same
// image again. BMO has no rebuild either (reference/bmo.md §5.2): reprovision = deprovision + provision.
const image = makeHost().spec.image;
const provisioned = (o: Parameters<typeof atState>[1] = {}) =>
  atState('provisioned', { ...o, status: { poweredOn: true, provisioning: { state: 'provisioned', ID: 'n', image }, ...o.status } });
const requested = (id = 'req-1', o: Parameters<typeof atState>[1] = {}) =>
  provisioned({ ...o, annotations: { [REPROVISION]: id, ...o.annotations } });

const events = (effects: readonly BmhEffect[]) => effects.flatMap((e) => (e.type === 'event' ? [e] : []));
const removed = (effects: readonly BmhEffect[]) => effects.flatMap((e) => (e.type === 'removeAnnotation' ? [e.key] : []));

test('bmh reprovision - a provisioned host with the annotation waits provisioned for a slot, then removes it, records an event and deprovisions', (t) => {
  // BMO's capacity check: the host stays provisioned (delayed) until deprovisioning may start,
  // and the request stays on the object until then.
  const waiting = tick(requested());
  t.is(waiting.state.host.status.provisioning.state, 'provisioned');
  t.deepEqual(types(waiting.effects), ['requestSlot']);
  const s = grant(waiting.state);
  t.is(s.state.host.status.provisioning.state, 'deprovisioning');
  t.deepEqual(types(s.effects), ['removeAnnotation', 'call', 'writeStatus']);
  t.deepEqual(removed(s.effects), [REPROVISION]);
  t.is(s.state.host.metadata.annotations?.[REPROVISION], undefined);
  const reasons = events(s.effects).map((e) => e.reason);
  t.deepEqual(reasons, ['ReprovisionRequested', 'StateChanged', 'DeprovisioningStarted']);
  t.regex(events(s.effects)[0]?.message ?? '', /^reprovision \(request req-1\): deprovisioning, then deploying spec\.image again$/);
  t.deepEqual(calls(s.effects).map((c) => c.op), ['deprovision']);
});

test('bmh reprovision - the whole path: deprovision, available, provision the same image, provisioned', (t) => {
  const s0 = tick(requested());
  const s1 = grant(s0.state);
  t.deepEqual(calls(s1.effects), [{ op: 'deprovision', restartOnFailure: false, automatedCleaning: true }]);

  const s2 = reply(s1, done, T0 + 1_000);
  t.is(s2.state.host.status.provisioning.state, 'available');
  t.is(s2.state.host.status.provisioning.image, undefined);
  // The deprovision slot is given back, and a provision slot asked for at once.
  t.deepEqual(types(s2.effects), ['releaseSlot', 'requestSlot', 'writeStatus']);

  const s3 = grant(s2.state, T0 + 2_000);
  t.is(s3.state.host.status.provisioning.state, 'provisioning');
  t.deepEqual(calls(s3.effects).map((c) => c.op), ['provision']);
  t.deepEqual((calls(s3.effects)[0] as { image?: unknown }).image, image);

  const s4 = reply(s3, done, T0 + 3_000);
  t.is(s4.state.host.status.provisioning.state, 'provisioned');
  t.deepEqual(s4.state.host.status.provisioning.image, image);
  t.is(s4.state.slot.phase, 'none');
  t.truthy(s4.state.host.status.operationHistory?.deprovision?.end);
  t.truthy(s4.state.host.status.operationHistory?.provision?.end);

  // Settled: the annotation is gone, so nothing starts again.
  const s5 = tick(s4.state, T0 + 4_000);
  t.is(s5.state.host.status.provisioning.state, 'provisioned');
  t.false(s5.effects.some((e) => e.type === 'requestSlot' || e.type === 'call'));
});

test('bmh reprovision - played out by a settling actor: exactly one deprovision and one provision', (t) => {
  const { last, all } = settle(tick(requested()));
  t.is(last.state.host.status.provisioning.state, 'provisioned');
  const ops = all.flatMap((e) => (e.type === 'call' ? [e.args.op] : []));
  t.deepEqual(ops, ['deprovision', 'provision']);
  t.is(removed(all).filter((k) => k === REPROVISION).length, 1);
  t.is(events(all).filter((e) => e.reason === 'ReprovisionRequested').length, 1);
});

test('bmh reprovision - the object re-observed without the annotation (our removal landing) changes nothing', (t) => {
  const s0 = grant(tick(requested()).state);
  const again = observe(s0.state, { ...s0.state.host, metadata: { ...s0.state.host.metadata, annotations: {} } });
  t.is(again.state.host.status.provisioning.state, 'deprovisioning');
  t.deepEqual(removed(again.effects), []);
  t.false(again.effects.some((e) => e.type === 'requestSlot'));
});

test('bmh reprovision - an offline host drops the annotation with a warning and is not deprovisioned', (t) => {
  const s = tick(requested('r-off', { spec: { online: false }, status: { poweredOn: false } }));
  t.is(s.state.host.status.provisioning.state, 'provisioned');
  t.deepEqual(removed(s.effects), [REPROVISION]);
  const warning = events(s.effects).find((e) => e.reason === 'ReprovisionIgnored');
  t.is(warning?.severity, 'Warning');
  t.regex(warning?.message ?? '', /r-off.*spec\.online is false/);
  t.false(s.effects.some((e) => e.type === 'requestSlot'));
});

test('bmh reprovision - a changed image already redeploys: the pending annotation is consumed, not kept for later', (t) => {
  const other = { url: 'http://images/fedora.qcow2', checksum: 'def', checksumType: 'sha256' as const };
  const s = grant(tick(requested('r-img', { spec: { image: other } })).state);
  t.is(s.state.host.status.provisioning.state, 'deprovisioning');
  t.deepEqual(removed(s.effects), [REPROVISION]);
  t.false(events(s.effects).some((e) => e.reason === 'ReprovisionRequested'));
  const { last, all } = settle(s);
  t.is(last.state.host.status.provisioning.state, 'provisioned');
  t.deepEqual(last.state.host.status.provisioning.image, other);
  t.deepEqual(all.flatMap((e) => (e.type === 'call' ? [e.args.op] : [])), ['deprovision', 'provision']);
});

test('bmh reprovision - a paused or detached host does not act on the annotation', (t) => {
  const paused = tick(requested('r-p', { annotations: { 'baremetalhost.metal3.io/paused': '' } }));
  t.deepEqual(paused.effects, []);
  t.is(paused.state.host.status.provisioning.state, 'provisioned');

  const detached = requested('r-d', { annotations: { 'baremetalhost.metal3.io/detached': '' }, status: { operationalStatus: 'detached' } });
  const s = tick(detached);
  t.is(s.state.host.status.provisioning.state, 'provisioned');
  t.deepEqual(removed(s.effects), []);
  t.deepEqual(calls(s.effects), []);
});

test('bmh reprovision - a failed deprovision backs off and retries, then still deploys again', (t) => {
  const s1 = grant(tick(requested()).state);
  const failed = reply(s1, { kind: 'failed', message: 'clean failed' }, T0 + 1_000, 0);
  t.is(failed.state.host.status.provisioning.state, 'deprovisioning');
  t.is(failed.state.host.status.errorType, 'provisioning error');
  // After the backoff the retry goes through the same path and ends provisioned.
  const { last, all } = settle(tick(failed.state, T0 + 10 * 60_000), () => done, T0 + 10 * 60_000);
  t.is(last.state.host.status.provisioning.state, 'provisioned');
  t.is(last.state.host.status.errorType, '');
  t.deepEqual(all.flatMap((e) => (e.type === 'call' ? [e.args.op] : [])), ['deprovision', 'provision']);
});

// ---- property: a request is consumed once, whatever interleaves with it --------------------------

type Action =
  | { kind: 'tick'; advanceMs: number }
  | { kind: 'result'; result: OpResult }
  | { kind: 'grant' }
  | { kind: 'edit'; edit: 'reprovision' | 'pause' | 'unpause' | 'offline' | 'online' | 'image' };

const action: fc.Arbitrary<Action> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('tick' as const), advanceMs: fc.integer({ min: 0, max: 10_000_000 }) }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('result' as const),
      result: fc.constantFrom<OpResult>({ kind: 'done' }, { kind: 'done', poweredOn: true }, { kind: 'failed', message: 'boom' }, { kind: 'continuing', afterMs: 1000 }, { kind: 'transient', message: 'reset' }),
    }),
    weight: 6,
  },
  { arbitrary: fc.constant<Action>({ kind: 'grant' }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('edit' as const), edit: fc.constantFrom('reprovision', 'reprovision', 'pause', 'unpause', 'offline', 'online', 'image') }), weight: 2 },
);

function edited(h: BareMetalHost, e: Extract<Action, { kind: 'edit' }>['edit'], n: number): BareMetalHost {
  const annotations = { ...h.metadata.annotations };
  const spec = { ...h.spec };
  switch (e) {
    case 'reprovision': annotations[REPROVISION] = `r-${n}`; break;
    case 'pause': annotations['baremetalhost.metal3.io/paused'] = ''; break;
    case 'unpause': delete annotations['baremetalhost.metal3.io/paused']; break;
    case 'offline': spec.online = false; break;
    case 'online': spec.online = true; break;
    case 'image': spec.image = { url: `http://images/v${n}.qcow2`, checksum: 'c', checksumType: 'sha256' }; break;
  }
  return { ...h, metadata: { ...h.metadata, generation: (h.metadata.generation ?? 1) + 1, annotations }, spec };
}

test('bmh reprovision property - each request is removed at most once, and a settled host ends provisioned without it', (t) => {
  fc.assert(fc.property(fc.array(action, { maxLength: 60 }), (actions) => {
    let cur: Step = tick(provisioned());
    let now = T0;
    let requests = 0;
    let removals = 0;
    const count = (s: Step) => { removals += removed(s.effects).filter((k) => k === REPROVISION).length; };
    count(cur);
    actions.forEach((a, n) => {
      if (a.kind === 'tick') {
        now += a.advanceMs;
        cur = tick(cur.state, now);
      } else if (a.kind === 'result') {
        const call = cur.state.inFlight;
        if (!call) return;
        cur = step(cur.state, { type: 'result', seq: call.seq, result: a.result, jitter: 0 }, now);
      } else if (a.kind === 'grant') {
        if (cur.state.slot.phase !== 'waiting') return;
        cur = grant(cur.state, now);
      } else {
        const before = cur.state.host.metadata.annotations?.[REPROVISION];
        if (a.edit === 'reprovision' && before === undefined) requests += 1;
        cur = observe(cur.state, edited(cur.state.host, a.edit, n), now);
      }
      count(cur);
      if (removals > requests) throw new Error(`removed ${removals} reprovision annotations for ${requests} requests`);
    });
    // Let every call finish and every wait pass, unpaused and online: the host settles provisioned.
    cur = observe(cur.state, edited(edited(cur.state.host, 'unpause', 0), 'online', 0), now);
    count(cur);
    // Play the actor: finish every call, grant every waiting slot, let every backoff pass.
    for (let i = 0; i < 100; i++) {
      const call = cur.state.inFlight;
      if (call) cur = step(cur.state, { type: 'result', seq: call.seq, result: { kind: 'done', poweredOn: true }, jitter: 0 }, now);
      else if (cur.state.slot.phase === 'waiting') cur = grant(cur.state, now);
      else if (cur.state.retryAt !== null || cur.effects.some((e) => e.type === 'requeue')) {
        now += 24 * 3_600_000;
        cur = tick(cur.state, now);
        if (!cur.state.inFlight && cur.state.slot.phase !== 'waiting' && cur.state.retryAt === null) break;
      } else break;
      count(cur);
    }
    const last = cur;
    t.is(last.state.host.status.provisioning.state, 'provisioned');
    t.is(last.state.host.metadata.annotations?.[REPROVISION], undefined);
    t.true(removals <= requests);
  }), { numRuns: 300 });
});
