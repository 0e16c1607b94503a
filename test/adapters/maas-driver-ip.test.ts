// The MAAS driver's VIP calls against the simulator over HTTP: reserve with a hostname, find the
// reservation again by that name (what a new owner does) or by address, release twice (the second
// answers "already released"), and a machine's NICs as the interface choice reads them.
import test from 'ava';
import { createMaasClient } from '../../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../../src/adapters/maas/driver/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';

test('maas driver ip - reserve, find by name or address, release once for real and once as already gone', async (t) => {
  const sim = await startMaasSim({ machines: [{ hostname: 'm1', zone: 'az1', cpuCount: 2, memoryMb: 2048, status: 'Deployed', nics: [{ name: 'eth0' }, { name: 'eth1', subnet: '10.20.0.0/24', tags: ['api'] }] }] });
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey });
  t.teardown(async () => {
    client.close();
    await sim.stop();
  });
  const driver = createMaasDriver(client);
  t.is(await driver.findReservedIp?.({ fqdn: 'c1-abc123.maas', subnet: '10.20.0.0/24' }), null);
  const ip = await driver.reserveIp?.({ subnet: '10.20.0.0/24', hostname: 'c1-abc123.maas' });
  t.regex(ip ?? '', /^10\.20\.0\.\d+$/);
  t.is(await driver.findReservedIp?.({ fqdn: 'c1-abc123.maas', subnet: '10.20.0.0/24' }), ip, 'found by the reservation\'s hostname');
  t.is(await driver.findReservedIp?.({ fqdn: 'c1-abc123.maas', subnet: '10.99.0.0/24' }), null, 'not in that subnet');
  t.is(await driver.findReservedIp?.({ fqdn: 'x.nodomain', subnet: '10.20.0.0/24', address: ip }), ip, 'found by address');
  t.is(await driver.findReservedIp?.({ fqdn: 'x.nodomain', subnet: '10.20.0.0/24' }), null, 'a name in a domain MAAS lacks finds nothing');
  await t.throwsAsync(driver.reserveIp?.({ subnet: '10.20.0.0/24', address: ip, hostname: 'c2.maas' }) ?? Promise.resolve(), { message: /already in use/ });
  t.true(await driver.releaseIp?.(ip ?? ''));
  t.false(await driver.releaseIp?.(ip ?? ''));
  const id = sim.machine('m1')?.system_id ?? '';
  const nics = await driver.machineInterfaces?.(id);
  t.deepEqual(nics?.map((n) => [n.name, n.tags, n.addresses.map((a) => a.subnetCidr)]), [['eth0', [], [sim.machine('m1')?.ip_addresses[0]?.replace(/\.\d+$/, '.0/24')]], ['eth1', ['api'], ['10.20.0.0/24']]]);
  t.is(await driver.machineInterfaces?.('nosuch'), null);
});
