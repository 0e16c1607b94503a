// Issue 30: calls that hold no capacity slot (registration, power, reads) are bounded per backend
// on each node, first come first served; a host holding a slot never waits behind them.
import test from 'ava';
import type { Provisioner } from '../../src/ports/index.ts';
import { bmh, secret, startTestNode } from '../support/node.ts';
import { deferred, waitFor, waitUntil } from '../support/wait.ts';

const POOL = 'fixture:default';

// Enrolled only (Metal3's enrollment run): no inspection, no image, offline; registration and
// the reads after it are all the calls such a host makes, and none holds a slot.
function enrolled(name: string): unknown {
  const host = bmh(name, { image: false, online: false }) as { spec: Record<string, unknown> };
  host.spec['inspectionMode'] = 'disabled';
  host.spec['automatedCleaningMode'] = 'disabled';
  return host;
}

test('call bound - many hosts registering at once: the backend never sees more than the bound\'s calls at once', async (t) => {
  const hosts = Array.from({ length: 60 }, (_, i) => enrolled(`enroll-${i}`));
  const { node, store, fixture } = await startTestNode({
    objects: [secret(), ...hosts],
    fixture: { latencyMs: 20 },
    calls: { limits: { fixture: 4 }, defaultLimit: 50 },
  });
  t.teardown(() => node.stop());
  await waitUntil(async () => (await store.resources.list('BareMetalHost')).every((h) => (h.status as { provisioning?: { state?: string } } | undefined)?.provisioning?.state === 'available'), 60_000, 'every host available', 100);
  t.is(fixture.totals().register >= 60, true);
  // Without the bound all 60 registrations reached the fixture at once.
  t.true(fixture.maxCallsInFlight.ungated <= 4, `the fixture saw ${fixture.maxCallsInFlight.ungated} calls at once`);
  t.is(fixture.maxCallsInFlight.ungated, 4, 'the bound was reached: the test measured it');
  const figures = node.backendCalls().find((c) => c.backend === POOL);
  // Live figures: the hosts' reads after registration (firmware, power) may still be queued.
  t.like(figures, { limit: 4, maxInFlight: 4 });
  t.true((figures?.inFlight ?? 99) <= 4);
  t.true((figures?.waitedTotal ?? 0) > 0);
});

test('call bound - a host holding a slot is not held behind ungated calls that fill the bound', async (t) => {
  const release = deferred();
  const stuck = (p: Provisioner): Provisioner => ({
    ...p, name: p.name, capacity: (h) => p.capacity(h),
    // Registrations of the stuck hosts hold the only place until the test lets them go.
    register: (h, a) => (h.name.startsWith('stuck-') ? release.promise.then(() => p.register(h, a)) : p.register(h, a)),
    inspect: (h, a) => p.inspect(h, a), prepare: (h, a) => p.prepare(h, a), provision: (h, a) => p.provision(h, a),
    deprovision: (h, a) => p.deprovision(h, a), adopt: (h, a) => p.adopt(h, a), powerOn: (h, a) => p.powerOn(h, a),
    powerOff: (h, a) => p.powerOff(h, a), hardwareState: (h, a) => p.hardwareState(h, a), detach: (h, a) => p.detach(h, a),
    delete: (h, a) => p.delete(h, a),
  });
  const deployer = bmh('deployer') as { spec: Record<string, unknown> };
  deployer.spec['inspectionMode'] = 'disabled';
  const { node, store, fixture } = await startTestNode({
    objects: [secret(), deployer],
    // A deployment of 40 passes: the host holds its slot, polling, while the stuck hosts come.
    fixture: { latencyMs: 5, provisionPasses: 40, pollMs: 10 },
    provisioner: stuck,
    calls: { limits: { fixture: 1 }, defaultLimit: 50 },
  });
  t.teardown(async () => {
    release.resolve();
    await node.stop();
  });
  await waitFor(() => fixture.node('lab/deployer')?.provisionState === 'deploying', 20_000, 'the deployer deploying (its slot held)');
  t.true((await store.applyObjects([bmh('stuck-1', { image: false }), bmh('stuck-2', { image: false }), bmh('stuck-3', { image: false })])).ok);
  await waitFor(() => node.backendCalls().some((c) => c.backend === POOL && c.inFlight === 1 && c.waiting >= 1), 10_000, 'the bound full of stuck registrations');
  await waitUntil(async () => (await store.get('lab/deployer'))?.status?.provisioning.state === 'provisioned', 20_000, 'the deployer provisioned while the bound was full');
  const figures = node.backendCalls().find((c) => c.backend === POOL);
  t.like(figures, { limit: 1, inFlight: 1 }, 'the stuck registration still holds the only place');
  t.is(fixture.calls('lab/stuck-1').register + fixture.calls('lab/stuck-2').register + fixture.calls('lab/stuck-3').register, 0);
  // Let them go: they register in turn.
  release.resolve();
  await waitUntil(async () => (await Promise.all(['stuck-1', 'stuck-2', 'stuck-3'].map((n) => store.get(`lab/${n}`)))).every((h) => h?.status?.provisioning.state !== 'registering' && h?.status?.provisioning.state !== ''), 20_000, 'the stuck hosts registered');
  t.true((node.backendCalls().find((c) => c.backend === POOL)?.maxInFlight ?? 0) <= 1);
});
