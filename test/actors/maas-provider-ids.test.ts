// CAPMAAS writes a MaasMachine's providerID, systemID and failureDomain from MAAS on every
// reconcile (reference/capmaas.md §2.3 step 7). A MaasMachine that names its machine by systemID
// alone, or by providerID alone, must get the rest: without spec.providerID Cluster API never
// copies one to the Machine, and the Machine never runs, however ready the MaasMachine says it is.
import test from 'ava';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import { startMaasNode } from '../support/maas-node.ts';
import { waitUntil } from '../support/wait.ts';
import { T0, calls, grant, maasMachine, reply, start, tick, view, world } from '../machines/maas-fixtures.ts';

type Spec = { providerID?: string; systemID?: string; failureDomain?: string };
type Status = { ready?: boolean; failureReason?: string };

function withSpec(objects: unknown[], name: string, spec: Record<string, unknown>): unknown[] {
  return objects.map((o) => {
    const doc = o as { kind: string; metadata: { name: string }; spec: Record<string, unknown> };
    return doc.kind === 'MaasMachine' && doc.metadata.name === name ? { ...doc, spec: { ...doc.spec, ...spec } } : o;
  });
}

test('maas provider ids - a MaasMachine pinned by systemID alone, or by providerID alone, is given the other ids from MAAS', async (t) => {
  const it = await startMaasNode();
  try {
    const pinned = it.sim.machine('node-06');
    const named = it.sim.machine('node-03');
    if (!pinned || !named) throw new Error('the default fleet has node-03 and node-06');
    let objects = generateMaasCluster({ controlPlane: 0, workers: 2 });
    objects = withSpec(objects, 'demo-worker-0', { systemID: pinned.system_id });
    objects = withSpec(objects, 'demo-worker-1', { providerID: `maas:///az1/${named.system_id}` });
    t.true((await it.apply(objects)).ok);
    const get = async (name: string) => it.store.get('MaasMachine', `capi/${name}`);
    await waitUntil(async () => (await it.store.list('MaasMachine')).every((m) => (m.status as Status | undefined)?.ready === true), 20_000, 'both ready');
    await waitUntil(async () => ((await get('demo-worker-0'))?.spec as Spec).providerID !== undefined && ((await get('demo-worker-1'))?.spec as Spec).systemID !== undefined, 5_000, 'ids written');

    const w0 = (await get('demo-worker-0'))?.spec as Spec;
    t.is(w0.providerID, `maas:///az2/${pinned.system_id}`);
    t.is(w0.systemID, pinned.system_id);
    t.is(w0.failureDomain, 'az2');
    const w1 = (await get('demo-worker-1'))?.spec as Spec;
    t.is(w1.providerID, `maas:///az1/${named.system_id}`);
    t.is(w1.systemID, named.system_id);
    t.is(w1.failureDomain, 'az1');
    // The pinned machines were deployed, and nothing else was allocated.
    t.is(it.sim.machine(pinned.system_id)?.status_name, 'Deployed');
    t.is(it.sim.machine(named.system_id)?.status_name, 'Deployed');
    t.is(it.sim.machines().filter((m) => m.status_name !== 'Ready').length, 2);
  } finally {
    await it.stop();
  }
});

test('maas provider ids - a providerID write that was lost is written again on the next look at MAAS', async (t) => {
  const it = await startMaasNode();
  try {
    t.true((await it.apply(generateMaasCluster({ controlPlane: 0, workers: 1 }))).ok);
    const key = 'capi/demo-worker-0';
    await waitUntil(async () => ((await it.store.get('MaasMachine', key))?.status as Status | undefined)?.ready === true, 20_000, 'ready');
    const before = (await it.store.get('MaasMachine', key))?.spec as Spec;
    t.regex(before.providerID ?? '', /^maas:\/\/\/az1\/[a-z0-9]+$/);
    // The ids go missing from the stored object (a write that never landed, a restore from a
    // backup taken between the allocation and the write): they come back from MAAS.
    await it.store.patchSpec('MaasMachine', key, { providerID: null, systemID: null, failureDomain: null });
    await waitUntil(async () => ((await it.store.get('MaasMachine', key))?.spec as Spec).providerID === before.providerID, 5_000, 'providerID written again');
    const after = (await it.store.get('MaasMachine', key))?.spec as Spec;
    t.is(after.systemID, before.systemID);
    t.is(after.failureDomain, before.failureDomain);
  } finally {
    await it.stop();
  }
});

test('maas provider ids - as a step: the first look at a machine named by systemID writes its providerID and zone, once', (t) => {
  const s0 = tick(start(maasMachine({ systemID: 'abc123' }, {}, false), world(), { skipSwap: true }));
  t.deepEqual(calls(s0), [{ op: 'get', systemId: 'abc123' }]);
  const seen = reply(s0, { kind: 'done', machine: view('Allocated', 'off') });
  const writes = (st: { effects: readonly { type: string }[] }) => st.effects.filter((e) => e.type === 'writeSpec');
  t.deepEqual(writes(seen), [{ type: 'writeSpec', patch: { providerID: 'maas:///az1/abc123', systemID: 'abc123', failureDomain: 'az1' } }]);
  // Deployed next, the ids are not written again.
  const deployed = reply(grant(seen.state), { kind: 'done', machine: view('Deploying') });
  t.deepEqual(writes(deployed), []);
  t.deepEqual(writes(reply(tick(deployed.state, T0 + 10_000), { kind: 'done', machine: view('Deployed') }, T0 + 10_000)), []);
  // A providerID that names the machine is kept as it is; only what is missing is added.
  const named = tick(start(maasMachine({ providerID: 'maas:///old-zone/abc123' }, {}, false), world(), { skipSwap: true }));
  t.deepEqual(writes(reply(named, { kind: 'done', machine: view('Deployed') })), [{ type: 'writeSpec', patch: { providerID: 'maas:///old-zone/abc123', systemID: 'abc123', failureDomain: 'az1' } }]);
});
