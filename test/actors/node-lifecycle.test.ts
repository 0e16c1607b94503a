import test from 'ava';
import { countStatusWrites } from '../support/local-store.ts';
import { waitFor } from '../support/wait.ts';
import { bmh, secret, startTestNode, statusOf } from '../support/node.ts';

test('node - hosts go through the whole lifecycle to provisioned, status written to the store', async (t) => {
  const { node, store, substrate, fixture } = await startTestNode();
  const statusWrites = await countStatusWrites(substrate.transport);
  const objects = [secret(), ...Array.from({ length: 40 }, (_, i) => bmh(`h-${i}`))];
  t.true((await store.applyObjects(objects)).ok);
  await waitFor(() => node.stats.count('provisioned') === 40, 10_000, '40 hosts provisioned');
  await node.stop();
  statusWrites.stop();
  const st = await statusOf(store, 'lab/h-7');
  t.is(st?.provisioning.state, 'provisioned');
  t.is(st?.operationalStatus, 'OK');
  t.true(st?.poweredOn);
  t.is(st?.hardware?.ramMebibytes, 131072);
  t.truthy(st?.provisioning.ID);
  t.is(fixture.calls('lab/h-7').provision, 1);
  t.deepEqual((await store.get('lab/h-7'))?.metadata.finalizers, ['baremetalhost.metal3.io']);
  // Coalesced: far fewer writes than steps, at most one per state change here.
  const writes = statusWrites('lab/h-7');
  t.true(writes >= 1 && writes <= 7, `status writes: ${writes}`);
});

test('node - the capacity limit holds at the backend and every host still finishes', async (t) => {
  const { node, store, fixture } = await startTestNode({ limit: 3, fixture: { latencyMs: { provision: 15, inspect: 5, deprovision: 5 } } });
  t.true((await store.applyObjects([secret(), ...Array.from({ length: 24 }, (_, i) => bmh(`c-${i}`))])).ok);
  let figuresSeen = false;
  await waitFor(() => {
    if (node.stats.count('provisioning') > 0) figuresSeen = true;
    return node.stats.count('provisioned') === 24;
  }, 20_000, '24 hosts provisioned');
  const capacity = await node.capacity();
  await node.stop();
  t.true(figuresSeen);
  t.true(fixture.maxBusy <= 3, `backend saw ${fixture.maxBusy} busy hosts at once`);
  t.is(fixture.maxBusy, 3);
  t.is(capacity.totals.inUse, 0);
});

test('node - a failing host does not touch the others', async (t) => {
  const { node, store } = await startTestNode({ fixture: { failHosts: { 'bad-1': ['provision'] } } });
  t.true((await store.applyObjects([secret(), bmh('bad-1'), ...Array.from({ length: 10 }, (_, i) => bmh(`good-${i}`))])).ok);
  await waitFor(() => node.stats.count('provisioned') === 10 && node.stats.hosts.get('lab/bad-1')?.errorType === 'provisioning error', 10_000, 'good provisioned, bad failed');
  const bad = await node.snapshot('lab/bad-1');
  await node.stop();
  t.is(bad?.status.errorType, 'provisioning error');
  // BMO counts the failure when the host leaves provisioning for deprovisioning, after the
  // backoff (a minute here): until then the error is recorded and the count is unchanged.
  t.is(bad?.status.provisioningFailCount, 0);
  t.is(bad?.state, 'provisioning');
  t.regex(bad?.status.errorMessage ?? '', /injected provision failure|provision/);
  t.truthy(bad?.retryAt);
});

test('node - deleting a provisioned host deprovisions it and removes it from the store', async (t) => {
  const { node, store, fixture } = await startTestNode();
  t.true((await store.applyObjects([secret(), bmh('gone-1'), bmh('stays-1')])).ok);
  await waitFor(() => node.stats.count('provisioned') === 2, 10_000, 'provisioned');
  t.is(await store.requestDelete('lab/gone-1'), 'terminating');
  await waitFor(() => node.stats.goneCount === 1, 10_000, 'host gone');
  await waitFor(() => fixture.node('lab/gone-1') === undefined, 5_000, 'backend node deleted');
  t.is(await store.get('lab/gone-1'), undefined);
  t.is(fixture.calls('lab/gone-1').deprovision, 1);
  t.is(fixture.calls('lab/gone-1').delete, 1);
  t.is(node.stats.hosts.get('lab/stays-1')?.state, 'provisioned');
  await node.stop();
});

test('node - a restarted node resumes from stored status and never provisions twice', async (t) => {
  const { node, store, substrate, fixture } = await startTestNode();
  t.true((await store.applyObjects([secret(), bmh('r-1'), bmh('r-2')])).ok);
  await waitFor(() => node.stats.count('provisioned') === 2, 10_000, 'provisioned');
  await node.stop();
  t.is(fixture.totals().provision, 2);
  // Same KV (the durable truth), a new node with its own store on it and a backend that lost its
  // database. Secrets are the process's own, never in KV: the new store is given them again.
  const again = await startTestNode({ kv: substrate.memoryKv!, objects: [secret()], machine: { powerPollMs: 10 } });
  await waitFor(() => again.fixture.totals().adopt === 2, 10_000, 'both hosts adopted');
  await again.node.stop();
  t.is(again.fixture.totals().provision, 0);
  t.is(again.fixture.totals().register, 2);
  t.is((await statusOf(again.store, 'lab/r-1'))?.provisioning.state, 'provisioned');
});
