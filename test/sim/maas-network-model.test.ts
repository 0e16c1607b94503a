// Fabrics, VLANs, spaces and subnets of the simulated MAAS (api/fabrics.py, vlans.py, spaces.py,
// subnets.py), checked against the fields juju's gomaasapi requires of each (fabric.go, vlan.go,
// space.go, subnet.go), and the subnets matching the addresses machines are given.
import test from 'ava';
import type { MaasSim, SeedMachine } from '../../src/sim/maas/index.ts';
import { call, ok, withSim as withFleet } from '../support/maas-http.ts';

const FLEET: SeedMachine[] = [
  { hostname: 'a1', zone: 'az1', cpuCount: 4, memoryMb: 8192, status: 'Deployed' },
  { hostname: 'a2', zone: 'az1', cpuCount: 4, memoryMb: 8192 },
  { hostname: 'b1', zone: 'az2', cpuCount: 4, memoryMb: 8192 },
];

type Json = Record<string, unknown>;

const withSim = (fn: (sim: MaasSim) => Promise<void>) => withFleet(FLEET, fn);

// gomaasapi's schema kinds: what each field must hold for the 2.0 readers.
type Kind = 'string' | 'int' | 'bool' | 'list' | 'map' | 'string|null' | 'int|null' | 'list|null';

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'map' : typeof v;
}

function schemaErrors(obj: unknown, fields: Record<string, Kind>, where: string): string[] {
  if (kindOf(obj) !== 'map') return [`${where}: not an object`];
  const o = obj as Json;
  return Object.entries(fields).flatMap(([key, kind]) => {
    if (!(key in o)) return [`${where}.${key}: missing`];
    const actual = kindOf(o[key]);
    return kind.split('|').includes(actual) ? [] : [`${where}.${key}: expected ${kind}, got ${actual}`];
  });
}

const VLAN: Record<string, Kind> = { id: 'int', resource_uri: 'string', name: 'string|null', fabric: 'string', vid: 'int', mtu: 'int', dhcp_on: 'bool', primary_rack: 'string|null', secondary_rack: 'string|null' };
const FABRIC: Record<string, Kind> = { resource_uri: 'string', id: 'int', name: 'string', class_type: 'string|null', vlans: 'list' };
const SUBNET: Record<string, Kind> = { resource_uri: 'string', id: 'int', name: 'string', space: 'string', gateway_ip: 'string|null', cidr: 'string', vlan: 'map', dns_servers: 'list|null' };
const SPACE: Record<string, Kind> = { resource_uri: 'string', id: 'int', name: 'string', subnets: 'list' };

test('network - fabric-0 with its untagged VLAN passes gomaasapi fabric and vlan checks', async (t) => {
  await withSim(async (sim) => {
    const fabrics = ok<Json[]>(await call(sim, 'GET', 'fabrics/'));
    t.is(fabrics.length, 1);
    const fabric = fabrics[0] as Json;
    t.deepEqual(schemaErrors(fabric, FABRIC, 'fabric'), []);
    t.like(fabric, { id: 0, name: 'fabric-0', class_type: null, resource_uri: '/MAAS/api/2.0/fabrics/0/' });
    const vlans = fabric.vlans as Json[];
    t.is(vlans.length, 1);
    t.deepEqual(schemaErrors(vlans[0], VLAN, 'vlan'), []);
    t.like(vlans[0], { name: 'untagged', vid: 0, fabric: 'fabric-0', fabric_id: 0, mtu: 1500, space: 'space-0' });
    const id = (vlans[0] as Json).id as number;
    t.deepEqual(ok(await call(sim, 'GET', 'fabrics/0/vlans/')), vlans);
    t.deepEqual(ok(await call(sim, 'GET', 'fabrics/0/vlans/0/')), vlans[0]);
    t.deepEqual(ok(await call(sim, 'GET', `vlans/${id}/`)), vlans[0]);
    t.is((await call(sim, 'GET', 'vlans/4/')).text, 'VLAN with specified ID does not exist.');
    t.is((await call(sim, 'GET', 'fabrics/9/')).text, 'No Fabric matches the given query.');
  });
});

test('network - one /24 per zone, all in space-0, each passing the subnet check', async (t) => {
  await withSim(async (sim) => {
    const zones = ok<Array<{ id: number; name: string }>>(await call(sim, 'GET', 'zones/'));
    const subnets = ok<Json[]>(await call(sim, 'GET', 'subnets/'));
    t.deepEqual(subnets.map((s) => s.cidr).sort(), zones.map((z) => `10.10.${z.id}.0/24`).sort());
    for (const s of subnets) t.deepEqual(schemaErrors(s, SUBNET, `subnet ${String(s.cidr)}`), []);
    const spaces = ok<Json[]>(await call(sim, 'GET', 'spaces/'));
    t.is(spaces.length, 1);
    t.deepEqual(schemaErrors(spaces[0], SPACE, 'space'), []);
    t.deepEqual(((spaces[0] as Json).subnets as Json[]).map((s) => s.cidr).sort(), subnets.map((s) => s.cidr).sort());
  });
});

test('network - a machine address lies in its zone subnet, which is readable by id and by CIDR', async (t) => {
  await withSim(async (sim) => {
    const a1 = sim.machine('a1');
    const ip = a1?.ip_addresses[0] ?? '';
    const zone = ok<{ id: number }>(await call(sim, 'GET', 'zones/az1/'));
    t.true(ip.startsWith(`10.10.${zone.id}.`), ip);
    const cidr = `10.10.${zone.id}.0/24`;
    const byCidr = ok<Json>(await call(sim, 'GET', `subnets/${cidr}/`));
    t.like(byCidr, { cidr, gateway_ip: `10.10.${zone.id}.1`, space: 'space-0' });
    t.deepEqual(ok(await call(sim, 'GET', `subnets/${String(byCidr.id)}/`)), byCidr);
    // The gateway and a1's address are taken.
    const stats = ok<Json>(await call(sim, 'GET', `subnets/${String(byCidr.id)}/?op=statistics`));
    t.like(stats, { total_addresses: 254, num_unavailable: 2, num_available: 252, first_address: `10.10.${zone.id}.1`, last_address: `10.10.${zone.id}.254`, usage_string: '1%', ip_version: 4 });
    t.is((await call(sim, 'GET', 'subnets/999/')).text, 'No Subnet matches the given query.');
  });
});

test('network - subnet, space and fabric writes are for admins; a subnet CIDR is normalised and unique', async (t) => {
  await withSim(async (sim) => {
    t.is((await call(sim, 'POST', 'subnets/', [['cidr', '192.168.5.0/24']], sim.userKey)).text, 'This method is reserved for admin users.');
    const made = ok<Json>(await call(sim, 'POST', 'subnets/', [['cidr', '192.168.5.77/24'], ['gateway_ip', '192.168.5.1']]));
    t.like(made, { cidr: '192.168.5.0/24', name: '192.168.5.0/24', gateway_ip: '192.168.5.1', space: 'space-0' });
    t.deepEqual(JSON.parse((await call(sim, 'POST', 'subnets/', [['cidr', '192.168.5.0/24']])).text), { cidr: ['Subnet with this Cidr already exists.'] });
    t.deepEqual(JSON.parse((await call(sim, 'POST', 'subnets/', [['cidr', '10.9.0.0/16'], ['gateway_ip', '10.8.0.1']])).text), { gateway_ip: ['Gateway IP must be within CIDR range.'] });
    t.like(ok<Json>(await call(sim, 'PUT', `subnets/${String(made.id)}/`, [['name', 'lab'], ['dns_servers', '1.1.1.1 8.8.8.8']])), { name: 'lab', dns_servers: ['1.1.1.1', '8.8.8.8'] });
    t.is((await call(sim, 'DELETE', `subnets/${String(made.id)}/`, undefined, sim.userKey)).status, 403);
    t.is((await call(sim, 'DELETE', `subnets/${String(made.id)}/`)).status, 204);

    const space = ok<Json>(await call(sim, 'POST', 'spaces/', [['name', 'dmz']]));
    t.like(space, { name: 'dmz', subnets: [], vlans: [] });
    t.is((await call(sim, 'DELETE', `spaces/${String(space.id)}/`)).status, 204);

    const fabric = ok<Json>(await call(sim, 'POST', 'fabrics/', []));
    t.deepEqual(schemaErrors(fabric, FABRIC, 'fabric'), []);
    t.like((fabric.vlans as Json[])[0], { vid: 0, fabric: fabric.name });
    const tagged = ok<Json>(await call(sim, 'POST', `fabrics/${String(fabric.id)}/vlans/`, [['vid', '42'], ['name', 'storage']]));
    t.like(tagged, { vid: 42, name: 'storage', fabric_id: fabric.id, space: 'undefined' });
    t.deepEqual(JSON.parse((await call(sim, 'POST', `fabrics/${String(fabric.id)}/vlans/`, [['vid', '42']])).text), { __all__: ['VLAN with this Vid and Fabric already exists.'] });
    t.is((await call(sim, 'DELETE', 'fabrics/0/')).status, 400);
    t.is((await call(sim, 'DELETE', `fabrics/${String(fabric.id)}/`)).status, 204);
  });
});

test('network - op=ip_addresses lists who holds each address of a subnet, in address order', async (t) => {
  await withSim(async (sim) => {
    const zone = ok<{ id: number }>(await call(sim, 'GET', 'zones/az1/'));
    const cidr = `10.10.${zone.id}.0/24`;
    const a1 = sim.machine('a1');
    const machineIp = a1?.ip_addresses[0] ?? '';
    ok(await call(sim, 'POST', 'dnsresources/', [['fqdn', 'vip.maas'], ['ip_addresses', `10.10.${zone.id}.5 192.0.2.9`]]));
    const ips = ok<Json[]>(await call(sim, 'GET', `subnets/${cidr}/?op=ip_addresses`));
    t.deepEqual(ips.map((i) => i.ip), [`10.10.${zone.id}.5`, machineIp]);
    t.like(ips[0], { alloc_type: 4, user: 'admin', dns_records: [{ name: 'vip', domain: 'maas' }] });
    t.like(ips[1], { alloc_type: 0, user: 'admin', node_summary: { system_id: a1?.system_id, hostname: 'a1', fqdn: 'a1.maas', node_type: 0, is_container: false } });
    t.regex(String(ips[1]?.created), /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2}\. \d{4} \d{2}:\d{2}:\d{2}$/);
    const bare = ok<Json[]>(await call(sim, 'GET', `subnets/${cidr}/?op=ip_addresses&with_summary=0&with_username=0`));
    t.deepEqual(Object.keys(bare[1] ?? {}).sort(), ['alloc_type', 'created', 'ip', 'updated']);
  });
});

test('network - VLAN, fabric and space updates; deleting a tagged VLAN moves its subnets to the untagged one', async (t) => {
  await withSim(async (sim) => {
    const fabric = ok<Json>(await call(sim, 'PUT', 'fabrics/0/', [['class_type', '10g']]));
    t.like(fabric, { class_type: '10g', name: 'fabric-0' });
    const tagged = ok<Json>(await call(sim, 'POST', 'fabrics/0/vlans/', [['vid', '7']]));
    t.like(ok<Json>(await call(sim, 'PUT', 'fabrics/0/vlans/7/', [['mtu', '9000'], ['space', 'space-0']])), { mtu: 9000, space: 'space-0' });
    t.deepEqual(JSON.parse((await call(sim, 'PUT', `vlans/${String(tagged.id)}/`, [['mtu', '100']])).text), { mtu: ['Ensure this value is greater than or equal to 552.'] });
    const subnet = ok<Json>(await call(sim, 'POST', 'subnets/', [['cidr', '172.16.7.0/24'], ['vlan', String(tagged.id)]]));
    t.like(subnet.vlan, { vid: 7, mtu: 9000 });
    t.is((await call(sim, 'DELETE', 'fabrics/0/vlans/0/')).text, 'This VLAN is the default VLAN in the fabric, it cannot be deleted.');
    t.is((await call(sim, 'DELETE', `vlans/${String(tagged.id)}/`)).status, 204);
    t.like(ok<Json>(await call(sim, 'GET', `subnets/${String(subnet.id)}/`)).vlan, { vid: 0, fabric: 'fabric-0' });
    t.like(ok<Json>(await call(sim, 'PUT', 'spaces/0/', [['name', 'default-space']])), { name: 'default-space' });
    t.like(ok<Json[]>(await call(sim, 'GET', 'subnets/'))[0], { space: 'default-space' });
    t.is((await call(sim, 'DELETE', 'spaces/undefined/')).text, 'Space cannot be deleted: undefined');
    const other = ok<Json>(await call(sim, 'POST', 'fabrics/', [['name', 'storage']]));
    ok(await call(sim, 'POST', 'subnets/', [['cidr', '172.17.0.0/16'], ['fabric', 'storage']]));
    t.is((await call(sim, 'DELETE', `fabrics/${String(other.id)}/`)).text, "Can't delete fabric; the following subnets are still present: 172.17.0.0/16");
  });
});

// gomaasapi's static-route reader (staticroute.go): both subnets as full subnet objects.
const STATIC_ROUTE: Record<string, Kind> = { resource_uri: 'string', id: 'int', source: 'map', destination: 'map', gateway_ip: 'string', metric: 'int' };

test('network - static routes: admins create, update and delete them; anyone lists and reads; StaticRouteForm\'s checks', async (t) => {
  await withSim(async (sim) => {
    const [a, b] = ok<Json[]>(await call(sim, 'GET', 'subnets/')) as [Json, Json];
    const gateway = String(a.cidr).replace(/0\/24$/, '254');
    const form: Array<[string, string]> = [['source', String(a.id)], ['destination', String(b.cidr)], ['gateway_ip', gateway]];
    t.is((await call(sim, 'POST', 'static-routes/', form, sim.userKey)).text, 'This method is reserved for admin users.');
    const made = ok<Json>(await call(sim, 'POST', 'static-routes/', form));
    t.deepEqual(schemaErrors(made, STATIC_ROUTE, 'static route'), []);
    t.like(made, { gateway_ip: gateway, metric: 0, source: { id: a.id, cidr: a.cidr }, destination: { id: b.id, cidr: b.cidr }, resource_uri: `/MAAS/api/2.0/static-routes/${String(made.id)}/` });
    t.deepEqual(schemaErrors(made.source, SUBNET, 'source'), []);
    t.deepEqual(ok(await call(sim, 'GET', 'static-routes/', undefined, sim.userKey)), [made]);
    t.deepEqual(ok(await call(sim, 'GET', `static-routes/${String(made.id)}/`, undefined, sim.userKey)), made);

    const refused = async (pairs: Array<[string, string]>) => {
      const r = await call(sim, 'POST', 'static-routes/', pairs);
      return [r.status, JSON.parse(r.text) as unknown];
    };
    t.deepEqual(await refused(form), [400, { __all__: ['Static route with this Source, Destination and Gateway IP already exists.'] }]);
    t.deepEqual(await refused([['source', String(a.id)], ['destination', String(a.id)], ['gateway_ip', gateway]]), [400, { __all__: ['source and destination cannot be the same subnet.'] }]);
    t.deepEqual(await refused([['source', String(a.id)], ['destination', String(b.id)], ['gateway_ip', '192.0.2.1']]), [400, {
      gateway_ip: [`Enter an IP address in ${String(a.cidr)}.`],
      // The model's own clean() runs after the form's and says it again (Django's _post_clean).
      __all__: ['gateway_ip must be with in the source subnet.'],
    }]);
    t.deepEqual(await refused([['destination', 'nosuch'], ['gateway_ip', 'x'], ['metric', '-1']]), [400, {
      source: ['This field is required.'],
      destination: ['Select a valid choice. That choice is not one of the available choices.'],
      gateway_ip: ['Enter a valid IPv4 or IPv6 address.'],
      metric: ['Ensure this value is greater than or equal to 0.'],
    }]);

    t.is((await call(sim, 'PUT', `static-routes/${String(made.id)}/`, [['metric', '5']], sim.userKey)).status, 403);
    t.like(ok<Json>(await call(sim, 'PUT', `static-routes/${String(made.id)}/`, [['metric', '5']])), { metric: 5, gateway_ip: gateway });
    t.is((await call(sim, 'DELETE', `static-routes/${String(made.id)}/`, undefined, sim.userKey)).status, 403);
    t.is((await call(sim, 'DELETE', `static-routes/${String(made.id)}/`)).status, 204);
    const gone = await call(sim, 'GET', `static-routes/${String(made.id)}/`);
    t.deepEqual([gone.status, gone.text], [404, 'No StaticRoute matches the given query.']);

    // A route goes with either of its subnets (the foreign keys cascade).
    const extra = ok<Json>(await call(sim, 'POST', 'subnets/', [['cidr', '192.168.7.0/24']]));
    ok(await call(sim, 'POST', 'static-routes/', [['source', String(extra.id)], ['destination', String(a.id)], ['gateway_ip', '192.168.7.1'], ['metric', '10']]));
    t.is((await call(sim, 'DELETE', `subnets/${String(extra.id)}/`)).status, 204);
    t.deepEqual(ok(await call(sim, 'GET', 'static-routes/')), []);
  });
});
