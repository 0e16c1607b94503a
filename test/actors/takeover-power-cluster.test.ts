// Two `metalfleet node` processes on NATS, one killed: the survivor takes its shards over and
// adopts its provisioned, powered-on hosts. Nothing changed their power, so `inspect` of a moved
// host shows no "Host powered on" of the new owner (BMO publishes power events on a change).
import test from 'ava';
import { gather, inspectHost } from '../../src/cluster/introspect/index.ts';
import { withCluster } from '../support/cluster.ts';
import { waitUntil } from '../support/wait.ts';

const CLUSTER = { shards: 16, leaseTtlMs: 2_000, heartbeatMs: 200 };

test.serial('takeover - hosts moved from a killed node show no power event when their power did not change', async (t) => {
  await withCluster(t, CLUSTER, async (c) => {
    await c.startNode('a');
    await c.startNode('b');
    const keys = await c.applyHosts(8);
    const opts = { timeoutMs: 2_000 };
    await waitUntil(async () => [...(await c.statesOf(keys)).values()].every((s) => s === 'provisioned'), 60_000, 'every host provisioned', 100);
    await waitUntil(async () => (await Promise.all(keys.map((k) => c.store.get(k)))).every((h) => h?.status?.poweredOn === true), 30_000, 'every host powered on', 100);
    const hosts = await gather(c.transport, 'hosts', {}, opts);
    const moved = hosts.replies.find((r) => r.node === 'b')?.value.hosts.map((h) => h.key) ?? [];
    t.true(moved.length > 0, 'b drives some hosts');

    const readsBefore = new Map(moved.map((k) => [k, c.fixture.fixture.calls(k).hardwareState]));
    const powerOnsBefore = new Map(moved.map((k) => [k, c.fixture.fixture.calls(k).powerOn]));
    await c.killNode('b');
    await waitUntil(async () => ((await gather(c.transport, 'shards', {}, { ...opts, nodes: ['a'] })).replies[0]?.value.shards.length ?? 0) === 16, 30_000, 'a took over all shards', 100);
    // Each moved host is driven by a again and has had its first power reads there.
    await waitUntil(async () => {
      const on = (await gather(c.transport, 'hosts', {}, { ...opts, nodes: ['a'] })).replies[0]?.value.hosts ?? [];
      return moved.every((k) => on.some((h) => h.key === k && h.state === 'provisioned'));
    }, 30_000, 'the moved hosts provisioned on a', 100);
    // Their first power reads by a have been answered (a reads at once what it takes over).
    await waitUntil(async () => moved.every((k) => c.fixture.fixture.calls(k).hardwareState >= readsBefore.get(k)! + 1), 30_000, 'a read the moved hosts\' power', 100);
    for (const key of moved) {
      const host = (await inspectHost(c.transport, key, { ...opts, shardCount: 16, nodes: ['a'] })).value.host;
      t.is(host.status['poweredOn'], true, key);
      t.deepEqual(host.recent.map((e) => `${e.reason}: ${e.message}`).filter((e) => /^Power/.test(e)), [], `${key}: no power event after the takeover`);
      t.is(c.fixture.fixture.calls(key).powerOn, powerOnsBefore.get(key)!, `${key}: no power-on call`);
    }
  });
});
