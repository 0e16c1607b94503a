import test from 'ava';
import type { CapacityFigures } from '../../src/actors/capacity/index.ts';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { openLocalStore } from '../../src/adapters/store/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import { HOST_FINALIZER } from '../../src/machines/bmh/types.ts';
import type { LocalNode } from '../support/local-node.ts';
import { bmh, secret, startTestNode } from '../support/node.ts';
import { waitFor, waitUntil } from '../support/wait.ts';

// Issue 30.1, the case left: a host deleted while its grant lives (its finalizer removed by hand, so
// its actor never ran the deletion that gives the slot back). With the object gone no spec says
// which pool the grant is in, so the node releases the holder in every pool at the broker: the
// grant goes back within a moment, not at its 30 s TTL, and the host waiting for it deploys.

const POOL = 'fixture:default';
const TTL_MS = 30_000;

async function holders(node: LocalNode): Promise<string[]> {
  const figures: CapacityFigures = await node.capacity();
  return (figures.pools.find((p) => p.pool === POOL)?.holders ?? []).map((h) => h.holder);
}

test('node gone grant - a host deleted mid-deploy with its finalizer removed by hand gives its grant back at once, and the waiting host deploys', async (t) => {
  // A deploy that never ends by itself: only the deletion can free the one slot.
  const fixture = createFixtureProvisioner({ demoBehaviours: false, provisionPasses: 1_000_000, pollMs: 50 });
  const { node, store } = await startTestNode({ limit: 1, provisioner: () => fixture });
  t.teardown(() => node.stop());
  t.true((await store.applyObjects([secret(), bmh('doomed-1')])).ok);
  await waitFor(() => fixture.calls('lab/doomed-1').provision > 1, 10_000, 'doomed-1 deploying');
  t.true((await store.applyObjects([bmh('waiting-1')])).ok);
  await waitUntil(async () => (await node.snapshot('lab/waiting-1'))?.slot.phase === 'waiting', 10_000, 'waiting-1 waits for the slot');
  t.deepEqual(await holders(node), ['lab/doomed-1']);

  // kubectl delete, then the finalizer patched away before the host's actor could tear it down.
  const started = Date.now();
  await Promise.all([store.requestDelete('lab/doomed-1'), store.removeFinalizer('lab/doomed-1', HOST_FINALIZER)]);
  await waitUntil(async () => (await store.get('lab/doomed-1')) === undefined, 2_000, 'doomed-1 gone from the store');

  await waitFor(() => fixture.calls('lab/waiting-1').provision > 0, 5_000, 'waiting-1 deploys within seconds, not after the 30 s TTL');
  const waited = Date.now() - started;
  t.true(waited < TTL_MS / 10, `waiting-1 waited ${waited} ms`);
  t.deepEqual(await holders(node), ['lab/waiting-1']);
});

// Deleted while its shard moved: the node that held it stopped (abandoning the grant for the next
// owner to adopt), the host was deleted with its finalizer removed by hand before anyone took the
// shard, and the next owner's listing never finds it. The broker's figures still name it: the new
// owner releases it in every pool, and the waiting host deploys long before the grant's TTL.
test('node gone grant - a host deleted while no node owned its shard gives its grant back once the next owner takes the shard', async (t) => {
  const fixture = createFixtureProvisioner({ demoBehaviours: false, provisionPasses: 1_000_000, pollMs: 50 });
  const first = await startTestNode({ limit: 1, provisioner: () => fixture });
  t.true((await first.store.applyObjects([secret(), bmh('moved-1')])).ok);
  await waitFor(() => fixture.calls('lab/moved-1').provision > 1, 10_000, 'moved-1 deploying');
  t.true((await first.store.applyObjects([bmh('waiting-2')])).ok);
  await waitUntil(async () => (await first.node.snapshot('lab/waiting-2'))?.slot.phase === 'waiting', 10_000, 'waiting-2 waits for the slot');
  t.deepEqual(await holders(first.node), ['lab/moved-1']);
  await first.node.stop();

  const kv = first.substrate.memoryKv!;
  const side = memorySubstrate({ kv });
  const edit = await openLocalStore(side.transport);
  t.is(await edit.requestDelete('lab/moved-1'), 'terminating');
  await edit.removeFinalizer('lab/moved-1', HOST_FINALIZER);
  t.is(await edit.get('lab/moved-1'), undefined);
  await side.transport.close();

  const started = Date.now();
  const second = await startTestNode({ kv, objects: [secret()], limit: 1, provisioner: () => fixture });
  t.teardown(() => second.node.stop());
  await waitFor(() => fixture.calls('lab/waiting-2').provision > 0, 10_000, 'waiting-2 deploys within seconds, not after the 30 s TTL');
  const waited = Date.now() - started;
  t.true(waited < TTL_MS / 3, `waiting-2 waited ${waited} ms`);
  t.deepEqual(await holders(second.node), ['lab/waiting-2']);
});
