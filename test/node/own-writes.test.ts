// A node does not re-process what its own host actors wrote (issue 29.5): the finalizer a host
// adds on its first turn wakes no second turn, while a change from another writer (a command,
// an apply) still reaches the host and moves it.
import test from 'ava';
import type { HostEvent } from '../../src/adapters/store/host-records.ts';
import { countStatusWrites } from '../support/local-store.ts';
import { bmh, secret, startTestNode } from '../support/node.ts';
import { waitFor } from '../support/wait.ts';

const KEY = 'lab/own-1';

test('node - a host\'s own finalizer write wakes it no second time; a command from another writer does', async (t) => {
  const { node, store, substrate } = await startTestNode();
  t.teardown(() => node.stop());
  const statusWrites = await countStatusWrites(substrate.transport);
  t.teardown(() => statusWrites.stop());
  // What the node's route hears from the store, heard beside it: every upsert is a wake-up.
  const heard: HostEvent[] = [];
  store.watch((e) => heard.push(e));
  t.true((await store.applyObjects([secret(), bmh('own-1')])).ok);
  await waitFor(() => node.stats.count('provisioned') === 1, 10_000, 'provisioned');
  t.deepEqual((await store.get(KEY))?.metadata.finalizers, ['baremetalhost.metal3.io'], 'the host added its finalizer');
  t.deepEqual(heard.map((e) => e.type), ['upsert'], 'only the apply woke the host');
  const writes = statusWrites(KEY);

  await store.applyIntent(KEY, { online: false });
  await waitFor(() => node.stats.hosts.get(KEY)?.poweredOn === false, 10_000, 'powered off by the command');
  t.deepEqual(heard.map((e) => e.type), ['upsert', 'upsert']);
  t.true(statusWrites(KEY) > writes, 'the command\'s turn wrote status');
});
