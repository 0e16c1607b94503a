// Issue 30: where refusals are heard. The node wraps its store and provisioner so every StaleFence
// and every owner-record refusal reaches the shard lease manager; callers see the same results.
import test from 'ava';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { refusalTellingProvisioner, refusalTellingStore } from '../../src/cluster/index.ts';
import type { BareMetalHostSpec } from '../../src/api/index.ts';
import type { Fence, FenceRefusal, HostData, ResourceStore } from '../../src/ports/index.ts';
import { StaleFence, StoreError } from '../../src/ports/index.ts';

const host = (fence: Fence): HostData => ({ key: 'lab/h-0', namespace: 'lab', name: 'h-0', uid: '', provisionerId: '', spec: {} as BareMetalHostSpec, credentials: null, fence });

test('stale fence taps - the fixture owner record refusal is told with the epoch it lost to; the result is unchanged', async (t) => {
  const fixture = createFixtureProvisioner({ demoBehaviours: false, latencyMs: 0 });
  const told: FenceRefusal[] = [];
  const tapped = refusalTellingProvisioner(fixture, (r) => told.push(r));
  await tapped.hardwareState(host({ shard: 1, epoch: 50, holder: 'b' }), { op: 'hardwareState' });
  t.deepEqual(told, []);
  const refused = await tapped.hardwareState(host({ shard: 1, epoch: 40, holder: 'a' }), { op: 'hardwareState' });
  t.is(refused.kind, 'transient');
  t.deepEqual(told, [{ fence: { shard: 1, epoch: 40, holder: 'a' }, current: 50, by: 'backend' }]);
  // Everything else is the fixture's own, on the fixture itself.
  t.is(tapped.name, fixture.name);
  t.is(tapped.fencedCalls, 1);
  t.is(tapped.fenceEpoch('lab/h-0'), 50);
});

test('stale fence taps - a StaleFence from a fenced store write is told and rethrown as it was; other errors are not told', async (t) => {
  const fence: Fence = { shard: 2, epoch: 7, holder: 'a' };
  const stale = new StaleFence('lab/h-0', fence, 99);
  let next: Error = stale;
  const store = { writeStatus: () => Promise.reject(next), get: () => Promise.resolve(undefined), staleFenceRefusals: () => 3 } as unknown as ResourceStore;
  const told: FenceRefusal[] = [];
  const tapped = refusalTellingStore(store, (r) => told.push(r));
  const err = await t.throwsAsync(tapped.writeStatus('BareMetalHost', 'lab/h-0', {} as never, fence));
  t.is(err, stale);
  t.deepEqual(told, [{ fence, current: 99, by: 'store' }]);
  next = new StoreError('unavailable', true);
  await t.throwsAsync(tapped.writeStatus('BareMetalHost', 'lab/h-0', {} as never, fence), { message: 'unavailable' });
  t.is(told.length, 1);
  t.is(tapped.staleFenceRefusals?.(), 3);
});
