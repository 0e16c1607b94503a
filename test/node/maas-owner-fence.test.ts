// Fencing at MAAS (issue 19.2): the shard owner records its lease in the machine's owner data
// (op=set_owner_data, against the MAAS simulator, which shares no code with the client), and an
// owner whose lease is older than the recorded one changes nothing; no change leaves once the
// lease is no longer safely held.
import test from 'ava';
import { createMaasClient } from '../../src/adapters/maas/client/index.ts';
import type { MaasClient } from '../../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../../src/adapters/maas/driver/index.ts';
import { leaseGuardedDriver } from '../../src/node/lease-guarded-driver.ts';
import { OWNER_RECORD_KEY } from '../../src/ports/index.ts';
import type { Fence, FenceRefusal, MaasDriver } from '../../src/ports/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import type { MaasSim } from '../../src/sim/maas/index.ts';

let sim: MaasSim;
let client: MaasClient;
let driver: MaasDriver;

test.before(async () => {
  sim = await startMaasSim({ deployMs: 50, releaseMs: 20 });
  client = createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey, retries: { attempts: 3, baseMs: 5, maxMs: 20 }, timeoutMs: 5_000 });
  driver = createMaasDriver(client);
});
test.after.always(async () => {
  client?.close();
  await sim?.stop();
});

const recordOn = async (systemId: string): Promise<unknown> => {
  const data = (await client.getMachine(systemId))?.owner_data ?? {};
  return data[OWNER_RECORD_KEY] === undefined ? undefined : JSON.parse(data[OWNER_RECORD_KEY]);
};

test('maas owner fence - set_owner_data sets and removes keys as MAAS does, and a release drops them all', async (t) => {
  const m = await client.allocate({ agentName: 'fence-wire', cpuCount: 1, memMb: 1 });
  t.deepEqual((await client.setOwnerData(m.system_id, { a: '1', b: '2' })).owner_data, { a: '1', b: '2' });
  t.deepEqual((await client.setOwnerData(m.system_id, { a: '', c: '3' })).owner_data, { b: '2', c: '3' }, "'' removes a key; keys not named stay");
  await client.release(m.system_id);
  const released = await client.getMachine(m.system_id);
  t.true(released?.status_name === 'Ready' || released?.status_name === 'Releasing');
  t.deepEqual(released?.owner_data, {});
});

test('maas owner fence - the owner records its lease; an older owner is refused and changes nothing; a newer one takes over', async (t) => {
  const b: Fence = { holder: 'node-b', shard: 4, epoch: 10 };
  const asB = leaseGuardedDriver(driver, () => true, b);
  const allocated = await asB.run({ op: 'allocate', agentName: 'fence-1', cpuCount: 1, memMb: 1 });
  if (allocated.kind !== 'done' || !allocated.machine) throw new Error(`allocate: ${JSON.stringify(allocated)}`);
  const id = allocated.machine.systemId;
  t.deepEqual(await recordOn(id), { holder: 'node-b', shard: 4, epoch: 10 }, 'recorded as soon as it is allocated');

  // The refusal is told with the epoch it lost to, so the shard's owner retakes above it (issue 30).
  const told: FenceRefusal[] = [];
  const asA = leaseGuardedDriver(driver, () => true, { holder: 'node-a', shard: 4, epoch: 7 }, (r) => told.push(r));
  const stale = await asA.run({ op: 'deploy', systemId: id, image: 'ubuntu/jammy', ephemeral: false });
  t.deepEqual(told, [{ fence: { holder: 'node-a', shard: 4, epoch: 7 }, current: 10, by: 'backend' }]);
  t.is(stale.kind, 'transient');
  t.regex(stale.kind === 'transient' ? stale.message : '', /MAAS machine \w+ is driven by node-b \(lease epoch 10 of shard 4\).*epoch 7/);
  t.is((await client.getMachine(id))?.status_name, 'Allocated', 'the stale deploy did not leave');
  t.deepEqual(await recordOn(id), { holder: 'node-b', shard: 4, epoch: 10 });

  const asC = leaseGuardedDriver(driver, () => true, { holder: 'node-c', shard: 4, epoch: 12 });
  const powered = await asC.run({ op: 'powerOn', systemId: id });
  t.is(powered.kind, 'done');
  t.deepEqual(await recordOn(id), { holder: 'node-c', shard: 4, epoch: 12 });
});

test('maas owner fence - no change leaves once the lease is no longer safely held', async (t) => {
  const fence: Fence = { holder: 'node-b', shard: 6, epoch: 20 };
  const m = await client.allocate({ agentName: 'fence-2', cpuCount: 1, memMb: 1 });
  let held = true;
  const guarded = leaseGuardedDriver(driver, () => held, fence);
  held = false;
  const result = await guarded.run({ op: 'deploy', systemId: m.system_id, image: 'ubuntu/jammy', ephemeral: false });
  t.is(result.kind, 'transient');
  t.is((await client.getMachine(m.system_id))?.status_name, 'Allocated');
  t.is(await recordOn(m.system_id), undefined, 'not even the owner record was written');
  await t.throwsAsync(guarded.createDns('x.maas', 30, ['10.0.0.1']));
});
