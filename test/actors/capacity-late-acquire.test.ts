// Issue 30.1 (h6): an acquire still on the wire when a new shard owner's sweep for deleted hosts'
// grants runs. The proxy's call kept retrying an acquire (no broker serving: a failover, a node
// joining) for as long as its patience, after its asker had stopped (the host's shard moved, the
// host was deleted) and after the proxy itself had stopped (the node shutting down, its connection
// still open while its actors drain). Such a retry reached the broker after the new owner's sweep
// had looked, was granted to nobody, and when the old node's connection was gone by the answer, the
// slot idled to its TTL. An acquire is now sent again only while its asker still waits for it and
// its proxy runs: what was sent while the asker lived precedes the asker's stop on the wire.
import test from 'ava';
import { releaseGoneHolders } from '../../src/actors/host/gone-grants.ts';
import { isLive } from '../../src/actors/capacity/cluster/index.ts';
import type { ResourceStore } from '../../src/ports/index.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { stop, type AnyActorRef } from '../../src/actors/runtime/index.ts';
import { waitFor } from '../support/wait.ts';
import { Gate, harness } from './capacity-cluster-harness.ts';

const deletedStore = { get: () => Promise.resolve(undefined) } as unknown as ResourceStore;

for (const how of ['its asker stopped', 'its proxy stopped'] as const) {
  test(`capacity late acquire - no acquire is sent again once ${how}: a new owner's sweep leaves no grant to nobody`, async (t) => {
    const h = await harness({ limit: 1 });
    t.teardown(() => h.stop());
    const { leadership } = h.broker('broker-a');
    const gate = new Gate();
    const p1 = h.proxy('node-1', { gate });
    const p2 = h.proxy('node-2');
    await h.settle();
    // No broker serves yet: the acquire fails (no responders) and its call tries again.
    const gone = h.holder(p1, 'ns/gone');
    gone.acquire();
    await waitFor(() => (h.busRequests.get('node-1') ?? 0) >= 2, 5_000, 'the acquire to be tried again');
    // The host is deleted, its shard moves: its actor stops (and, in the second case, the node's proxy).
    gone.lease.abandon();
    if (how === 'its proxy stopped') stop(p1 as unknown as AnyActorRef);
    // Not settle(): that waits for node-1's call to give up, which is the question here.
    const summary = () => h.system.registry.list().find((a) => a.path === p1.path)?.summary;
    await waitFor(() => (how === 'its proxy stopped' ? summary() === undefined : (summary()?.abandoned as number) >= 1), 5_000, `${how}`);
    // From here node-1's link holds what it sends (sent, not yet at the broker)...
    gate.closed = true;
    const sentBefore = h.busRequests.get('node-1') ?? 0;
    // ...for as long as its call could still try (the harness's patience is 2 s).
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    // The broker serves; the new owner's sweep finds no holder to settle.
    leadership.elect(1);
    await h.settle();
    t.is(await releaseGoneHolders({ broker: p2, store: deletedStore, log: silentLogger }, new Set(), () => true), 0);
    // What node-1 sent after its asker stopped reaches the broker now; node-1 is gone by the answer.
    gate.open();
    gate.closed = true;
    await h.settle();
    const live = ((await h.record())?.grants ?? []).filter((g) => isLive(g, h.clock.now())).map((g) => g.holder);
    t.deepEqual(live, [], 'no slot granted to a host nobody runs');
    t.is(h.busRequests.get('node-1') ?? 0, sentBefore, 'nothing sent after the asker stopped');
    const next = h.holder(p2, 'ns/next');
    next.acquire();
    await h.settle();
    t.is(next.state, 'granted', 'the next host is granted at once, not after a TTL');
    t.deepEqual(h.violations, []);
  });
}

test('capacity late acquire - an asker still waiting has its acquire tried again until a broker serves, and is granted', async (t) => {
  const h = await harness({ limit: 1 });
  t.teardown(() => h.stop());
  const { leadership } = h.broker('broker-a');
  const p1 = h.proxy('node-1');
  await h.settle();
  const waiting = h.holder(p1, 'ns/waiting');
  waiting.acquire();
  await waitFor(() => (h.busRequests.get('node-1') ?? 0) >= 2, 5_000, 'the acquire to be tried again');
  leadership.elect(1);
  await h.settle();
  t.is(waiting.state, 'granted', 'the same call reached the broker once it served');
  t.deepEqual(h.violations, []);
});
