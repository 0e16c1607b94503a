// What the MAAS driver answers, against the simulator over HTTP, on the two deletion paths that
// used to retry for ever: a release MAAS refuses because it has taken the machine back (capmaas.md
// §3.2 release: 409 "Machine cannot be released in its current state ('New')."), read back with
// its owner; and a DNS name whose domain MAAS no longer has (§3.2 DNS list: 404 "No Domain
// matches the given query.").
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { MetalfleetError } from '../../src/api/index.ts';
import { createMaasClient } from '../../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../../src/adapters/maas/driver/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';

async function setUp(t: ExecutionContext) {
  const sim = await startMaasSim({ machines: [
    { hostname: 'new1', zone: 'az1', cpuCount: 2, memoryMb: 2048, status: 'New' },
    { hostname: 'dep1', zone: 'az1', cpuCount: 2, memoryMb: 2048, status: 'Deployed' },
  ] });
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey });
  t.teardown(async () => {
    client.close();
    await sim.stop();
  });
  return { sim, driver: createMaasDriver(client) };
}

test('maas driver deletion - a release of a New machine is a conflict with MAAS\'s text; a read shows it New and owned by nobody', async (t) => {
  const { sim, driver } = await setUp(t);
  const id = sim.machine('new1')?.system_id ?? '';
  const released = await driver.run({ op: 'release', systemId: id });
  t.like(released, { kind: 'failed', reason: 'conflict' });
  t.true(released.kind === 'failed' && released.message.includes("Machine cannot be released in its current state ('New')."), JSON.stringify(released));
  t.like(await driver.run({ op: 'get', systemId: id }), { kind: 'done', machine: { systemId: id, statusName: 'New', owner: null } });
  // A deployed machine is read with its owner.
  const deployed = await driver.run({ op: 'get', systemId: sim.machine('dep1')?.system_id ?? '' });
  t.true(deployed.kind === 'done' && typeof deployed.machine?.owner === 'string' && deployed.machine.owner !== '', JSON.stringify(deployed));
});

test('maas driver deletion - a machine MAAS no longer has: release and read answer notFound (404 "No Machine matches the given query.")', async (t) => {
  const { driver } = await setUp(t);
  t.deepEqual(await driver.run({ op: 'release', systemId: 'nosuch' }), { kind: 'notFound' });
  t.deepEqual(await driver.run({ op: 'get', systemId: 'nosuch' }), { kind: 'notFound' });
});

test('maas driver deletion - a DNS name in a domain MAAS lacks is a typed, non-retryable failure naming MAAS\'s text; one in a domain it has is no record', async (t) => {
  const { driver } = await setUp(t);
  const err = await t.throwsAsync(driver.findDns('c1-abcdef.gone.example'));
  t.true(err instanceof MetalfleetError);
  t.is((err as MetalfleetError).code, 'dnsDomainNotFound');
  t.false((err as MetalfleetError).retryable);
  t.regex(err?.message ?? '', /No Domain matches the given query\./);
  t.regex(err?.message ?? '', /gone\.example/);
  t.is(await driver.findDns('c1-abcdef.maas'), null);
});
