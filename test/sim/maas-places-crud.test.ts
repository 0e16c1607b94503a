// Zones, resource pools and domains of the simulated MAAS as MAAS 3.6 serves them
// (api/zones.py, api/resourcepools.py, api/domains.py), over raw HTTP.
import test from 'ava';
import type { MaasSim, SeedMachine } from '../../src/sim/maas/index.ts';
import { call, ok, withSim as withFleet } from '../support/maas-http.ts';

const FLEET: SeedMachine[] = [
  { hostname: 'a1', zone: 'az1', pool: 'gpu', cpuCount: 4, memoryMb: 8192 },
  { hostname: 'a2', zone: 'az1', cpuCount: 4, memoryMb: 8192 },
  { hostname: 'b1', zone: 'az2', cpuCount: 4, memoryMb: 8192, domain: 'lab.example' },
];

interface Place {
  id: number;
  name: string;
  description: string;
  resource_uri: string;
}

interface Domain {
  id: number;
  name: string;
  ttl: number | null;
  authoritative: boolean;
  resource_record_count: number;
  is_default: boolean;
  resource_uri: string;
}

const withSim = (fn: (sim: MaasSim) => Promise<void>) => withFleet(FLEET, fn);

test('places - zones list by name with id, description and resource_uri', async (t) => {
  await withSim(async (sim) => {
    const zones = ok<Place[]>(await call(sim, 'GET', 'zones/'));
    t.deepEqual(zones.map((z) => z.name), ['az1', 'az2', 'default']);
    for (const z of zones) t.like(z, { description: '', resource_uri: `/MAAS/api/2.0/zones/${z.name}/` });
    t.true(zones.every((z) => Number.isInteger(z.id)));
    t.like(ok<Place>(await call(sim, 'GET', 'zones/az1/')), { name: 'az1' });
    const missing = await call(sim, 'GET', 'zones/nowhere/');
    t.is(missing.status, 404);
    t.is(missing.text, 'No Zone matches the given query.');
  });
});

test('places - zone writes are for admins, names are unique and valid', async (t) => {
  await withSim(async (sim) => {
    const denied = await call(sim, 'POST', 'zones/', [['name', 'az3']], sim.userKey);
    t.is(denied.status, 403);
    t.is(denied.text, 'This method is reserved for admin users.');
    t.like(ok<Place>(await call(sim, 'POST', 'zones/', [['name', 'az3'], ['description', 'third room']])), { name: 'az3', description: 'third room' });
    const again = await call(sim, 'POST', 'zones/', [['name', 'az3']]);
    t.is(again.status, 400);
    t.deepEqual(JSON.parse(again.text), { name: ['Physical zone with this Name already exists.'] });
    t.deepEqual(JSON.parse((await call(sim, 'POST', 'zones/', [['name', 'bad/name']])).text), { name: ['Enter a valid value.'] });
    t.deepEqual(JSON.parse((await call(sim, 'POST', 'zones/', [])).text), { name: ['This field is required.'] });
    t.is((await call(sim, 'PUT', 'zones/az3/', [['description', 'x']], sim.userKey)).status, 403);
  });
});

test('places - renaming a zone carries its machines; deleting one sends them to the default zone', async (t) => {
  await withSim(async (sim) => {
    t.like(ok<Place>(await call(sim, 'PUT', 'zones/az1/', [['name', 'rack-a']])), { name: 'rack-a', resource_uri: '/MAAS/api/2.0/zones/rack-a/' });
    t.is(sim.machine('a1')?.zone, 'rack-a');
    t.is((await call(sim, 'GET', 'zones/az1/')).status, 404);
    t.is((await call(sim, 'DELETE', 'zones/rack-a/')).status, 204);
    t.deepEqual([sim.machine('a1')?.zone, sim.machine('a2')?.zone], ['default', 'default']);
    t.is(sim.machine('b1')?.zone, 'az2');
    // MAAS answers 204 for a zone that is not there.
    t.is((await call(sim, 'DELETE', 'zones/rack-a/')).status, 204);
    const refused = await call(sim, 'DELETE', 'zones/default/');
    t.is(refused.status, 400);
    t.is(refused.text, 'This zone is the default zone, it cannot be deleted.');
  });
});

test('places - resource pools: default is id 0, reachable by id or name, protected while used', async (t) => {
  await withSim(async (sim) => {
    const pools = ok<Place[]>(await call(sim, 'GET', 'resourcepools/'));
    t.deepEqual(
      pools.map((p) => [p.name, p.description]),
      [
        ['default', 'Default pool'],
        ['gpu', ''],
      ],
    );
    t.like(pools[0], { id: 0, resource_uri: '/MAAS/api/2.0/resourcepool/0/' });
    const gpu = pools[1] as Place;
    t.like(ok<Place>(await call(sim, 'GET', `resourcepool/${gpu.id}/`)), { name: 'gpu' });
    t.like(ok<Place>(await call(sim, 'GET', 'resourcepool/gpu/')), { id: gpu.id });
    t.is((await call(sim, 'GET', 'resourcepool/99/')).text, 'No ResourcePool matches the given query.');
    t.is((await call(sim, 'POST', 'resourcepools/', [['name', 'spare']], sim.userKey)).status, 403);
    const spare = ok<Place>(await call(sim, 'POST', 'resourcepools/', [['name', 'spare'], ['description', 'cold']]));
    t.like(spare, { name: 'spare', description: 'cold', resource_uri: `/MAAS/api/2.0/resourcepool/${spare.id}/` });
    t.deepEqual(JSON.parse((await call(sim, 'POST', 'resourcepools/', [['name', 'spare']])).text), { name: ['Resource pool with this Name already exists.'] });
    const used = await call(sim, 'DELETE', `resourcepool/${gpu.id}/`);
    t.is(used.status, 400);
    t.is(used.text, 'Pool has machines in it, it cannot be deleted.');
    t.is((await call(sim, 'DELETE', 'resourcepool/0/')).text, 'This is the default pool, it cannot be deleted.');
    t.is((await call(sim, 'DELETE', `resourcepool/${spare.id}/`)).status, 204);
    t.is((await call(sim, 'GET', `resourcepool/${spare.id}/`)).status, 404);
    t.like(ok<Place>(await call(sim, 'PUT', `resourcepool/${gpu.id}/`, [['name', 'accel']])), { name: 'accel', id: gpu.id });
    t.is(sim.machine('a1')?.pool, 'accel');
  });
});

test('places - domains: shapes, counts, set_default and the default kept', async (t) => {
  await withSim(async (sim) => {
    const domains = ok<Domain[]>(await call(sim, 'GET', 'domains/'));
    t.deepEqual(domains.map((d) => [d.name, d.is_default]), [
      ['maas', true],
      ['lab.example', false],
    ]);
    t.like(domains[0], { id: 0, ttl: null, authoritative: true, resource_record_count: 0, resource_uri: '/MAAS/api/2.0/domains/0/' });
    t.is((await call(sim, 'POST', 'domains/', [['name', 'new.example']], sim.userKey)).text, 'This method is reserved for admin users.');
    const made = ok<Domain>(await call(sim, 'POST', 'domains/', [['name', 'new.example.'], ['ttl', '300'], ['authoritative', 'false']]));
    t.like(made, { name: 'new.example', ttl: 300, authoritative: false, is_default: false });
    t.deepEqual(JSON.parse((await call(sim, 'POST', 'domains/', [['name', 'new.example']])).text), { name: ['Domain with this Name already exists.'] });
    t.deepEqual(JSON.parse((await call(sim, 'POST', 'domains/', [['name', 'bad_name!']])).text), { name: ['Domain name contains invalid characters.'] });
    t.deepEqual(JSON.parse((await call(sim, 'POST', 'domains/', [['name', 'x.example'], ['ttl', '0']])).text), { ttl: ['Ensure this value is greater than or equal to 1.'] });

    // An address on a DNS resource counts as a record of its domain.
    ok(await call(sim, 'POST', 'dnsresources/', [['fqdn', 'api.new.example'], ['ip_addresses', '10.0.0.5 10.0.0.6']]));
    t.is(ok<Domain>(await call(sim, 'GET', `domains/${made.id}/`)).resource_record_count, 2);
    t.is(ok<Domain>(await call(sim, 'GET', 'domains/new.example/')).id, made.id);
    t.is((await call(sim, 'GET', 'domains/77/')).text, 'No Domain matches the given query.');

    t.is((await call(sim, 'POST', `domains/${made.id}/`, [['op', 'set_default']], sim.userKey)).status, 403);
    t.like(ok<Domain>(await call(sim, 'POST', `domains/${made.id}/`, [['op', 'set_default']])), { is_default: true });
    // Unowned machines on the old default follow it.
    t.is(sim.machine('a1')?.domain, 'new.example');
    t.is(sim.machine('b1')?.domain, 'lab.example');
    const refused = await call(sim, 'DELETE', `domains/${made.id}/`);
    t.is(refused.status, 400);
    t.is(refused.text, 'This domain is the default domain, it cannot be deleted.');
    t.is((await call(sim, 'DELETE', 'domains/0/')).status, 204);
    t.is((await call(sim, 'GET', 'domains/0/')).status, 404);
  });
});

test('places - a domain rename follows onto machines and DNS resources', async (t) => {
  await withSim(async (sim) => {
    const lab = ok<Domain[]>(await call(sim, 'GET', 'domains/')).find((d) => d.name === 'lab.example');
    if (!lab) throw new Error('no lab.example');
    ok(await call(sim, 'POST', 'dnsresources/', [['fqdn', 'www.lab.example'], ['ip_addresses', '10.0.0.9']]));
    t.like(ok<Domain>(await call(sim, 'PUT', `domains/${lab.id}/`, [['name', 'lab.test']])), { id: lab.id, name: 'lab.test' });
    t.is(sim.machine('b1')?.fqdn, 'b1.lab.test');
    t.deepEqual(sim.dnsResources().map((r) => r.fqdn), ['www.lab.test']);
    const inUse = await call(sim, 'DELETE', `domains/${lab.id}/`);
    t.is(inUse.status, 400);
  });
});
