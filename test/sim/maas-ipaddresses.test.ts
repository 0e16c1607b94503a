// ipaddresses/ of the simulated MAAS (src/maasserver/api/ip_addresses.py): reserve by subnet or
// address, MAAS's refusals in its words, the hostname's DNS name, release, the listing, and the
// reserved addresses counted in subnet statistics and kept from machines' deploys.
import test from 'ava';
import type { MaasSim, SeedMachine } from '../../src/sim/maas/index.ts';
import { call, idOf, ok, withSim as withFleet } from '../support/maas-http.ts';

const FLEET: SeedMachine[] = [
  { hostname: 'a1', zone: 'az1', cpuCount: 4, memoryMb: 8192, status: 'Deployed' },
  { hostname: 'a2', zone: 'az1', cpuCount: 4, memoryMb: 8192 },
  {
    hostname: 'm1', zone: 'az1', cpuCount: 4, memoryMb: 8192,
    nics: [{ name: 'eth0' }, { name: 'eth1', subnet: '10.20.0.0/24', tags: ['api'] }],
  },
];
const withSim = (fn: (sim: MaasSim) => Promise<void>) => withFleet(FLEET, fn);
type Json = Record<string, unknown>;
const zoneSubnet = (sim: MaasSim) => sim.machine('a1')?.ip_addresses[0]?.replace(/\.\d+$/, '.0/24') ?? '';

test('maas sim ipaddresses - reserve by subnet takes the lowest address of the smallest free run; release gives it back', async (t) => {
  await withSim(async (sim) => {
    const cidr = zoneSubnet(sim);
    const r = ok<Json>(await call(sim, 'POST', 'ipaddresses/?op=reserve', [['subnet', cidr]]));
    // 10.10.1.1 is the gateway and .10 the deployed machine: .2-.9 is the smallest free run.
    t.is(r.ip, cidr.replace('.0/24', '.2'));
    t.is(r.alloc_type, 4);
    t.is(r.alloc_type_name, 'User reserved');
    t.is((r.subnet as Json).cidr, cidr);
    t.is((r.owner as Json).username, 'admin');
    t.is(r.resource_uri, '/MAAS/api/2.0/ipaddresses/');
    const listed = ok<Json[]>(await call(sim, 'GET', 'ipaddresses/'));
    t.deepEqual(listed.map((a) => a.ip), [r.ip]);
    const stats = ok<Json>(await call(sim, 'GET', `subnets/${encodeURIComponent(cidr)}/?op=statistics`));
    t.is(stats.num_unavailable, 3, 'gateway, the machine and the reservation');
    const released = await call(sim, 'POST', 'ipaddresses/?op=release', [['ip', String(r.ip)]]);
    t.is(released.status, 204);
    t.deepEqual(ok<Json[]>(await call(sim, 'GET', 'ipaddresses/')), []);
    t.deepEqual(sim.reservedIps(), []);
  });
});

test('maas sim ipaddresses - a named address; one in use is 404 and one outside every subnet 400, in MAAS\'s words', async (t) => {
  await withSim(async (sim) => {
    const a1 = sim.machine('a1')?.ip_addresses[0] ?? '';
    const taken = await call(sim, 'POST', 'ipaddresses/?op=reserve', [['ip', a1]]);
    t.is(taken.status, 404);
    t.is(taken.text, `The IP address ${a1} is already in use.`);
    const outside = await call(sim, 'POST', 'ipaddresses/?op=reserve', [['ip', '192.0.2.7']]);
    t.is(outside.status, 400);
    t.is(outside.text, 'No known subnet for IP address: 192.0.2.7.');
    const bad = await call(sim, 'POST', 'ipaddresses/?op=reserve', [['ip', '10.10.1.999']]);
    t.is(bad.status, 400);
    t.deepEqual(JSON.parse(bad.text), { ip_address: ['Enter a valid IPv4 or IPv6 address.'] });
    const neither = await call(sim, 'POST', 'ipaddresses/?op=reserve', []);
    t.is(neither.text, "Must supply either the 'subnet' or the 'ip' parameter.");
    t.is((await call(sim, 'POST', 'ipaddresses/?op=reserve', [['subnet', '172.31.0.0/24']])).text, 'Unable to identify subnet: 172.31.0.0/24.');
    const vip = a1.replace(/\.\d+$/, '.200');
    const r = ok<Json>(await call(sim, 'POST', 'ipaddresses/?op=reserve', [['ip', vip], ['hostname', 'c1-api.maas']]));
    t.is(r.ip, vip);
    // The hostname makes a DNS name for the address, which goes with the release.
    t.deepEqual(sim.dnsResources().map((d) => [d.fqdn, d.ips]), [['c1-api.maas', [vip]]]);
    t.is((await call(sim, 'POST', 'ipaddresses/?op=reserve', [['ip', vip]])).text, `The IP address ${vip} is already in use.`);
    const noDomain = await call(sim, 'POST', 'ipaddresses/?op=reserve', [['ip', a1.replace(/\.\d+$/, '.201')], ['hostname', 'c1.nowhere']]);
    t.is(noDomain.status, 404);
    t.is(noDomain.text, 'No Domain matches the given query.');
    t.is(ok<Json[]>(await call(sim, 'GET', `ipaddresses/?ip=${vip}`)).length, 1);
    t.is((await call(sim, 'POST', 'ipaddresses/?op=release', [['ip', vip]])).status, 204);
    t.deepEqual(sim.dnsResources(), []);
    const again = await call(sim, 'POST', 'ipaddresses/?op=release', [['ip', vip]]);
    t.is(again.status, 400);
    t.true(again.text.startsWith(`IP address ${vip} does not exist, is not the correct type of address, or does not belong to the requesting user.`));
    t.is((await call(sim, 'POST', 'ipaddresses/?op=release', [])).text, 'No provided ip!');
  });
});

test('maas sim ipaddresses - another user sees and releases only its own; listing all is for admins', async (t) => {
  await withSim(async (sim) => {
    const cidr = zoneSubnet(sim);
    const mine = ok<Json>(await call(sim, 'POST', 'ipaddresses/?op=reserve', [['subnet', cidr]], sim.userKey));
    t.is((mine.owner as Json).username, 'user');
    t.deepEqual(ok<Json[]>(await call(sim, 'GET', 'ipaddresses/')).map((a) => a.ip), [], 'the admin\'s own list');
    t.is((await call(sim, 'GET', 'ipaddresses/?all=true', undefined, sim.userKey)).text, 'Listing all IP addresses requires admin privileges.');
    const all = ok<Json[]>(await call(sim, 'GET', 'ipaddresses/?all=true'));
    t.true(all.some((a) => a.ip === mine.ip && a.alloc_type === 4));
    t.true(all.some((a) => a.ip === sim.machine('a1')?.ip_addresses[0] && a.alloc_type === 0));
    t.is((await call(sim, 'POST', 'ipaddresses/?op=release', [['ip', String(mine.ip)]])).status, 400, 'not the admin\'s');
    t.is((await call(sim, 'POST', 'ipaddresses/?op=release', [['ip', String(mine.ip)], ['force', 'true']], sim.userKey)).text, 'Force-releasing an IP address requires admin privileges.');
    t.is((await call(sim, 'POST', 'ipaddresses/?op=release', [['ip', String(mine.ip)]], sim.userKey)).status, 204);
  });
});

test('maas sim ipaddresses - a deploy never claims a reserved address; a NIC cabled to a subnet gets an address there', async (t) => {
  await withSim(async (sim) => {
    const a1 = sim.machine('a1')?.ip_addresses[0] ?? '';
    const next = a1.replace(/\.\d+$/, '.11');
    ok(await call(sim, 'POST', 'ipaddresses/?op=reserve', [['ip', next]]));
    const id = idOf(sim, 'm1');
    ok(await call(sim, 'POST', 'machines/?op=allocate', [['name', 'm1']]));
    ok(await call(sim, 'POST', `machines/${id}/?op=deploy`, []));
    const m = ok<Json>(await call(sim, 'GET', `machines/${id}/`));
    const ips = m.ip_addresses as string[];
    t.false(ips.includes(next));
    t.is(ips.length, 2);
    t.true(ips[1]?.startsWith('10.20.0.'));
    const nics = m.interface_set as Json[];
    const eth1 = nics.find((n) => n.name === 'eth1') as Json;
    const link = (eth1.links as Json[])[0] as Json;
    t.is(link.ip_address, ips[1]);
    t.is((link.subnet as Json).cidr, '10.20.0.0/24');
    t.deepEqual(eth1.tags, ['api']);
    const eth0 = nics.find((n) => n.name === 'eth0') as Json;
    t.deepEqual((eth0.links as Json[]).map((l) => l.ip_address), [ips[0]]);
  });
});

test('maas sim ipaddresses - a deploy never claims an address a DNS resource or a device holds', async (t) => {
  await withSim(async (sim) => {
    // MAAS hands a deploy only addresses with no StaticIPAddress row; a DNS resource's address is
    // a USER_RESERVED row (DNSResourceForm.save) and a device's STICKY link another.
    const a1 = sim.machine('a1')?.ip_addresses[0] ?? '';
    const dnsHeld = a1.replace(/\.\d+$/, '.11');
    ok(await call(sim, 'POST', 'dnsresources/', [['fqdn', 'api.maas'], ['ip_addresses', dnsHeld]]));
    const subnets = ok<Json[]>(await call(sim, 'GET', 'subnets/'));
    const subnet = subnets.find((s) => s.cidr === zoneSubnet(sim)) as Json;
    const deviceHeld = a1.replace(/\.\d+$/, '.12');
    const device = ok<Json>(await call(sim, 'POST', 'devices/', [['mac_addresses', '00:16:3e:00:02:01'], ['parent', idOf(sim, 'a1')]]));
    const nic = (device.interface_set as Json[])[0] as Json;
    const uri = String(nic.resource_uri).replace('/MAAS/api/2.0/', '');
    ok(await call(sim, 'POST', `${uri}?op=link_subnet`, [['mode', 'STATIC'], ['subnet', String(subnet.id)], ['ip_address', deviceHeld]]));
    const id = idOf(sim, 'a2');
    ok(await call(sim, 'POST', 'machines/?op=allocate', [['name', 'a2']]));
    const deployed = ok<Json>(await call(sim, 'POST', `machines/${id}/?op=deploy`, []));
    const ips = deployed.ip_addresses as string[];
    t.is(ips.length, 1);
    t.false(ips.includes(dnsHeld), `deploy claimed ${dnsHeld}, which api.maas holds`);
    t.false(ips.includes(deviceHeld), `deploy claimed ${deviceHeld}, which a device holds`);
  });
});
