// The MAAS driver's part of issue 32: boot-resources read once a minute per MAAS (not once per
// machine), allocate and deploy refused before MAAS is asked when it lacks the image, and
// spec.staticAddress linked idempotently through link_subnet/unlink_subnet against the simulator.
import test from 'ava';
import { createMaasClient } from '../../src/adapters/maas/client/index.ts';
import type { BootResource } from '../../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../../src/adapters/maas/driver/index.ts';
import { imageCheck } from '../../src/adapters/maas/driver/image-check.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';

const resource = (name: string, architecture = 'amd64/ga-22.04'): BootResource => ({ id: 1, type: 'Synced', name, architecture });

test('maas driver - boot-resources are read once a minute, whatever the number of checks; a failed read is not kept', async (t) => {
  let reads = 0;
  let now = 0;
  let fail = false;
  const check = imageCheck({
    listBootResources: async () => {
      reads += 1;
      if (fail) throw new Error('MAAS down');
      return [resource('ubuntu/jammy'), resource('my-image', 'arm64/generic')];
    },
  }, () => now);
  t.deepEqual(await Promise.all([check.check('ubuntu/jammy'), check.check('custom/my-image'), check.check('ubuntu/jammy', 'amd64/generic')]), [{ found: true }, { found: true }, { found: true }]);
  t.is(reads, 1);
  t.deepEqual(await check.check('custom/my-image', 'amd64/generic'), { found: false, message: 'MAAS has no boot resource custom/my-image for amd64; it has ubuntu/jammy' });
  t.deepEqual(await check.check('rhel/9'), { found: false, message: 'MAAS has no boot resource rhel/9; it has ubuntu/jammy, custom/my-image' });
  now = 59_999;
  await check.check('ubuntu/jammy');
  t.is(reads, 1);
  now = 60_000;
  fail = true;
  await t.throwsAsync(check.check('ubuntu/jammy'), { message: 'MAAS down' });
  fail = false;
  t.deepEqual(await check.check('ubuntu/jammy'), { found: true });
  t.is(reads, 3);
});

test('maas driver - an image MAAS lacks: allocate and deploy answer imageNotFound and MAAS sees neither', async (t) => {
  const sim = await startMaasSim({ deployMs: 50 });
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey });
  t.teardown(async () => {
    client.close();
    await sim.stop();
  });
  const driver = createMaasDriver(client);
  const refused = await driver.run({ op: 'allocate', agentName: 'a', cpuCount: 1, memMb: 1, image: 'rhel/9' });
  t.deepEqual(refused, { kind: 'failed', reason: 'imageNotFound', message: 'MAAS has no boot resource rhel/9; it has ubuntu/focal, ubuntu/jammy, ubuntu/noble' });
  const allocated = await driver.run({ op: 'allocate', agentName: 'a', cpuCount: 1, memMb: 1, image: 'ubuntu/jammy' });
  if (allocated.kind !== 'done' || !allocated.machine) return t.fail(JSON.stringify(allocated));
  t.is(allocated.machine.architecture, 'amd64/generic');
  const deploy = await driver.run({ op: 'deploy', systemId: allocated.machine.systemId, image: 'custom/nope', ephemeral: false, architecture: 'amd64/generic' });
  t.like(deploy, { kind: 'failed', reason: 'imageNotFound' });
  const routes = sim.counts().byRoute;
  t.is(Object.entries(routes).filter(([r]) => r.endsWith('op=allocate')).reduce((n, [, c]) => n + c, 0), 1);
  t.is(Object.entries(routes).filter(([r]) => r.endsWith('op=deploy')).length, 0);
  t.is(Object.entries(routes).filter(([r]) => r.includes('boot-resources')).reduce((n, [, c]) => n + c, 0), 1);
});

test('maas driver - linkStatic replaces the AUTO link once; again it changes nothing; an address in use is addressInUse', async (t) => {
  const sim = await startMaasSim({ deployMs: 50 });
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey });
  t.teardown(async () => {
    client.close();
    await sim.stop();
  });
  const driver = createMaasDriver(client);
  const a = await client.allocate({ cpuCount: 1, zone: 'az1' });
  const cidr = (await client.listInterfaces(a.system_id))[0]?.links[0]?.subnet?.cidr ?? '';
  const address = cidr.replace(/0\/24$/, '77');
  const first = await driver.run({ op: 'linkStatic', systemId: a.system_id, subnet: cidr, address });
  t.like(first, { kind: 'done', machine: { ipAddresses: [address] } });
  const links = () => Object.entries(sim.counts().byRoute).filter(([r]) => r.includes('op=link_subnet') || r.includes('op=unlink_subnet')).reduce((n, [, c]) => n + c, 0);
  t.is(links(), 2);
  t.like(await driver.run({ op: 'linkStatic', systemId: a.system_id, subnet: cidr, address }), { kind: 'done', machine: { ipAddresses: [address] } });
  t.is(links(), 2, 'already linked: nothing sent');
  t.deepEqual((await client.listInterfaces(a.system_id))[0]?.links.map((l) => [l.mode, l.ip_address]), [['static', address]]);
  const b = await client.allocate({ cpuCount: 1, zone: 'az1' });
  const taken = await driver.run({ op: 'linkStatic', systemId: b.system_id, subnet: cidr, address });
  t.like(taken, { kind: 'failed', reason: 'addressInUse' });
  // Refused before anything was unlinked: the machine keeps its AUTO link.
  t.deepEqual((await client.listInterfaces(b.system_id))[0]?.links.map((l) => l.mode), ['auto']);
  t.like(await driver.run({ op: 'linkStatic', systemId: b.system_id, subnet: cidr, interface: 'nope0' }), { kind: 'failed', reason: 'interfaceNotFound' });
  t.like(await driver.run({ op: 'linkStatic', systemId: b.system_id, subnet: '10.99.0.0/24' }), { kind: 'failed', reason: 'subnetNotFound' });
  t.like(await driver.run({ op: 'linkStatic', systemId: b.system_id, subnet: cidr, address: '192.168.0.9' }), { kind: 'failed', reason: 'addressInvalid' });
});

test('maas driver - a machine released with another owner\'s STATIC link gets ours instead of keeping both', async (t) => {
  const sim = await startMaasSim({ deployMs: 0, releaseMs: 0, machines: [{ hostname: 'only', cpuCount: 2, memoryMb: 4096, zone: 'az1' }] });
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey });
  t.teardown(async () => {
    client.close();
    await sim.stop();
  });
  const driver = createMaasDriver(client);
  const m = await client.allocate({ cpuCount: 1 });
  const cidr = (await client.listInterfaces(m.system_id))[0]?.links[0]?.subnet?.cidr ?? '';
  const at = (host: number) => cidr.replace(/0\/24$/, String(host));
  t.like(await driver.run({ op: 'linkStatic', systemId: m.system_id, subnet: cidr, address: at(50) }), { kind: 'done' });
  await client.release(m.system_id);
  // MAAS keeps the STATIC link through the release (Node.release_interface_config).
  t.deepEqual((await client.getMachine(m.system_id))?.ip_addresses, [at(50)]);
  const again = await client.allocate({ cpuCount: 1 });
  t.is(again.system_id, m.system_id);
  t.like(await driver.run({ op: 'linkStatic', systemId: m.system_id, subnet: cidr, address: at(60) }), { kind: 'done', machine: { ipAddresses: [at(60)] } });
  t.deepEqual((await client.listInterfaces(m.system_id))[0]?.links.map((l) => [l.mode, l.ip_address]), [['static', at(60)]]);
});
