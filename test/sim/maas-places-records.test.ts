// DNS resource records (api/dnsresourcerecords.py), devices (api/devices.py, as gomaasapi's
// CreateDevice / Devices / Delete use them) and tags (api/tags.py) of the simulated MAAS.
import test from 'ava';
import type { MaasSim, SeedMachine } from '../../src/sim/maas/index.ts';
import { call, idOf, ok, withSim as withFleet } from '../support/maas-http.ts';

const FLEET: SeedMachine[] = [
  { hostname: 'a1', zone: 'az1', cpuCount: 4, memoryMb: 8192, tags: ['ssd'] },
  { hostname: 'b1', zone: 'az2', cpuCount: 4, memoryMb: 8192 },
];

type Json = Record<string, unknown>;

const withSim = (fn: (sim: MaasSim) => Promise<void>) => withFleet(FLEET, fn);

test('dns records - create by fqdn makes the resource; list filters by name, domain and rrtype', async (t) => {
  await withSim(async (sim) => {
    t.is((await call(sim, 'POST', 'dnsresourcerecords/', [['fqdn', 'www.maas'], ['rrtype', 'CNAME'], ['rrdata', 'web']], sim.userKey)).text, 'This method is reserved for admin users.');
    const cname = ok<Json>(await call(sim, 'POST', 'dnsresourcerecords/', [['fqdn', 'www.maas'], ['rrtype', 'cname'], ['rrdata', 'web']]));
    t.like(cname, { fqdn: 'www.maas', rrtype: 'CNAME', rrdata: 'web', ttl: null, resource_uri: `/MAAS/api/2.0/dnsresourcerecords/${String(cname.id)}/` });
    const mx = ok<Json>(await call(sim, 'POST', 'dnsresourcerecords/', [['name', 'mail'], ['domain', 'maas'], ['rrtype', 'MX'], ['rrdata', '10 mx.maas'], ['ttl', '60']]));
    t.like(mx, { fqdn: 'mail.maas', ttl: 60 });
    const srv = ok<Json>(await call(sim, 'POST', 'dnsresourcerecords/', [['fqdn', '_ldap._tcp.maas'], ['rrtype', 'SRV'], ['rrdata', '0 5 389 ldap.maas']]));
    t.like(srv, { fqdn: '_ldap._tcp.maas' });

    t.deepEqual(ok<Json[]>(await call(sim, 'GET', 'dnsresourcerecords/?rrtype=MX')).map((r) => r.id), [mx.id]);
    t.deepEqual(ok<Json[]>(await call(sim, 'GET', 'dnsresourcerecords/?fqdn=www.maas')).map((r) => r.id), [cname.id]);
    t.is(ok<Json[]>(await call(sim, 'GET', 'dnsresourcerecords/?domain=maas')).length, 3);
    t.is((await call(sim, 'GET', 'dnsresourcerecords/?domain=nope')).text, 'No Domain matches the given query.');
    // The DNS resource carries its records, and rrtype filters resources too.
    const www = ok<Json[]>(await call(sim, 'GET', 'dnsresources/?rrtype=CNAME'));
    t.deepEqual(www.map((r) => r.fqdn), ['www.maas']);
    t.like((www[0]?.resource_records as Json[])[0], { id: cname.id, rrtype: 'CNAME' });
  });
});

test('dns records - MAAS checks on rrtype, rrdata and CNAME exclusivity', async (t) => {
  await withSim(async (sim) => {
    const post = (form: Array<[string, string]>) => call(sim, 'POST', 'dnsresourcerecords/', form);
    t.is((await post([['fqdn', 'x.maas'], ['rrdata', 'y']])).text, 'rrtype must be provided.');
    t.is((await post([['fqdn', 'x.maas'], ['rrtype', 'TXT']])).text, 'rrdata must be provided.');
    t.deepEqual(JSON.parse((await post([['fqdn', 'x.maas'], ['rrtype', 'A'], ['rrdata', '10.0.0.1']])).text), { rrtype: ['A is not one of CNAME MX NS SRV SSHFP TXT.'] });
    t.deepEqual(JSON.parse((await post([['fqdn', 'x.maas'], ['rrtype', 'MX'], ['rrdata', 'mx.maas']])).text), {
      __all__: ["Invalid MX: Should be '<preference> <server>'. Range for preference is 0-65535."],
    });
    t.deepEqual(JSON.parse((await post([['rrtype', 'TXT'], ['rrdata', 'hello']])).text), { __all__: ['Either name and domain (or fqdn) must be specified'] });
    ok(await post([['fqdn', 'x.maas'], ['rrtype', 'TXT'], ['rrdata', 'hello world']]));
    t.deepEqual(JSON.parse((await post([['fqdn', 'x.maas'], ['rrtype', 'CNAME'], ['rrdata', 'y']])).text), { __all__: ['CNAME records for a name cannot coexist with non-CNAME records.'] });
  });
});

test('dns records - update and delete; the last record takes an address-less resource along', async (t) => {
  await withSim(async (sim) => {
    const txt = ok<Json>(await call(sim, 'POST', 'dnsresourcerecords/', [['fqdn', 'note.maas'], ['rrtype', 'TXT'], ['rrdata', 'v1']]));
    t.like(ok<Json>(await call(sim, 'PUT', `dnsresourcerecords/${String(txt.id)}/`, [['rrdata', 'v2'], ['ttl', '30']])), { rrdata: 'v2', ttl: 30 });
    t.like(ok<Json>(await call(sim, 'GET', `dnsresourcerecords/${String(txt.id)}/`)), { rrdata: 'v2' });
    t.is((await call(sim, 'PUT', `dnsresourcerecords/${String(txt.id)}/`, [['rrdata', 'v3']], sim.userKey)).status, 403);
    t.deepEqual(sim.dnsResources().map((r) => r.fqdn), ['note.maas']);
    t.is((await call(sim, 'DELETE', `dnsresourcerecords/${String(txt.id)}/`)).status, 204);
    t.deepEqual(sim.dnsResources(), []);
    t.is((await call(sim, 'GET', `dnsresourcerecords/${String(txt.id)}/`)).text, 'No DNSData matches the given query.');
  });
});

// gomaasapi device_2_0: these keys must be there (owner and parent may be null).
const DEVICE_KEYS = ['resource_uri', 'system_id', 'hostname', 'fqdn', 'parent', 'owner', 'ip_addresses', 'interface_set', 'zone', 'pool'];
const INTERFACE_KEYS = ['resource_uri', 'id', 'name', 'type', 'enabled', 'tags', 'vlan', 'links', 'mac_address', 'effective_mtu', 'parents', 'children'];

test('devices - create with MACs and a parent, find by hostname and MAC, delete', async (t) => {
  await withSim(async (sim) => {
    const parent = idOf(sim, 'a1');
    const device = ok<Json>(await call(sim, 'POST', 'devices/', [['hostname', 'juju-lxd-0'], ['mac_addresses', '00:16:3e:00:00:01'], ['mac_addresses', '00:16:3E:00:00:02'], ['parent', parent]], sim.userKey));
    for (const key of DEVICE_KEYS) t.true(key in device, key);
    t.like(device, { hostname: 'juju-lxd-0', fqdn: 'juju-lxd-0.maas', parent, owner: 'user', node_type_name: 'Device', resource_uri: `/MAAS/api/2.0/devices/${String(device.system_id)}/` });
    t.regex(String(device.system_id), /^[a-z0-9]{6}$/);
    t.like(device.zone, { name: 'az1' });
    const nics = device.interface_set as Json[];
    t.deepEqual(nics.map((n) => n.mac_address), ['00:16:3e:00:00:01', '00:16:3e:00:00:02']);
    for (const key of INTERFACE_KEYS) t.true(key in (nics[0] as Json), key);
    t.like(nics[0]?.vlan, { vid: 0, fabric: 'fabric-0' });

    const byName = ok<Json[]>(await call(sim, 'GET', 'devices/?hostname=juju-lxd-0', undefined, sim.userKey));
    t.deepEqual(byName.map((d) => d.system_id), [device.system_id]);
    t.deepEqual(ok<Json[]>(await call(sim, 'GET', 'devices/?mac_address=00:16:3e:00:00:02')).map((d) => d.system_id), [device.system_id]);
    t.deepEqual(ok<Json[]>(await call(sim, 'GET', 'devices/?hostname=other')), []);
    t.like(ok<Json>(await call(sim, 'GET', `devices/${String(device.system_id)}/`)), { hostname: 'juju-lxd-0' });

    t.deepEqual(JSON.parse((await call(sim, 'POST', 'devices/', [['hostname', 'x']])).text), { mac_addresses: ['This field is required.'] });
    t.deepEqual(JSON.parse((await call(sim, 'POST', 'devices/', [['mac_addresses', 'zz']])).text), { mac_addresses: ["'zz' is not a valid MAC address."] });
    t.deepEqual(JSON.parse((await call(sim, 'POST', 'devices/', [['mac_addresses', '00:16:3e:00:00:01']])).text), { mac_addresses: ['MAC address 00:16:3e:00:00:01 already in use on juju-lxd-0.'] });
    t.deepEqual(JSON.parse((await call(sim, 'POST', 'devices/', [['mac_addresses', '00:16:3e:00:00:09'], ['parent', 'nope00']])).text), {
      parent: ['Select a valid choice. That choice is not one of the available choices.'],
    });

    t.is((await call(sim, 'DELETE', `devices/${String(device.system_id)}/`)).status, 204);
    t.is((await call(sim, 'GET', `devices/${String(device.system_id)}/`)).text, 'No Device matches the given query.');
  });
});

test('devices - another user can neither see nor delete a device; an unnamed one gets a name', async (t) => {
  await withSim(async (sim) => {
    const device = ok<Json>(await call(sim, 'POST', 'devices/', [['mac_addresses', '00:16:3e:00:00:05']]));
    t.regex(String(device.hostname), /^[a-z0-9-]+$/);
    t.like(device, { owner: 'admin', parent: null });
    t.deepEqual(ok<Json[]>(await call(sim, 'GET', 'devices/', undefined, sim.userKey)), []);
    t.is((await call(sim, 'DELETE', `devices/${String(device.system_id)}/`, undefined, sim.userKey)).status, 403);
    t.is(ok<Json[]>(await call(sim, 'GET', 'devices/')).length, 1);
  });
});

test('tags - read, rename, list machines, delete; definitions refused', async (t) => {
  await withSim(async (sim) => {
    const a1 = idOf(sim, 'a1');
    t.deepEqual(ok<Json[]>(await call(sim, 'GET', 'tags/ssd/?op=machines')).map((m) => m.system_id), [a1]);
    t.deepEqual(ok<Json[]>(await call(sim, 'GET', 'tags/ssd/?op=nodes')).map((m) => m.system_id), [a1]);
    t.deepEqual(ok(await call(sim, 'GET', 'tags/ssd/?op=rack_controllers')), []);
    t.is((await call(sim, 'GET', 'tags/nope/?op=machines')).text, 'No Tag matches the given query.');

    t.is((await call(sim, 'PUT', 'tags/ssd/', [['name', 'flash']], sim.userKey)).status, 403);
    t.like(ok<Json>(await call(sim, 'PUT', 'tags/ssd/', [['name', 'flash'], ['comment', 'fast disks'], ['kernel_opts', 'quiet']])), {
      name: 'flash',
      comment: 'fast disks',
      kernel_opts: 'quiet',
      definition: '',
      resource_uri: '/MAAS/api/2.0/tags/flash/',
    });
    t.deepEqual(sim.machine('a1')?.tags, ['flash']);
    t.is((await call(sim, 'GET', 'tags/ssd/')).status, 404);
    t.deepEqual(ok(await call(sim, 'POST', 'tags/flash/', [['op', 'rebuild']])), { rebuilding: 'flash' });

    const defined = await call(sim, 'POST', 'tags/', [['name', 'gpu'], ['definition', '//node[@class="display"]']]);
    t.is(defined.status, 400);
    t.regex(JSON.parse(defined.text).definition[0] as string, /^Invalid XPath expression: /);
    t.deepEqual(JSON.parse((await call(sim, 'POST', 'tags/', [['name', 'has space']])).text), { name: ['Enter a valid value.'] });

    t.is((await call(sim, 'DELETE', 'tags/flash/', undefined, sim.userKey)).status, 403);
    t.is((await call(sim, 'DELETE', 'tags/flash/')).status, 204);
    t.deepEqual(sim.machine('a1')?.tags, []);
    t.is((await call(sim, 'DELETE', 'tags/flash/')).status, 404);
  });
});

test('devices - the juju container flow: rename the NIC, put it on a VLAN, link a static address', async (t) => {
  await withSim(async (sim) => {
    const device = ok<Json>(await call(sim, 'POST', 'devices/', [['mac_addresses', '00:16:3e:00:01:01'], ['parent', idOf(sim, 'a1')]], sim.userKey));
    const nic = (device.interface_set as Json[])[0] as Json;
    const subnet = ok<Json[]>(await call(sim, 'GET', 'subnets/'))[0] as Json;
    const vlan = subnet.vlan as Json;
    const uri = String(nic.resource_uri).replace('/MAAS/api/2.0/', '');
    t.like(ok<Json>(await call(sim, 'PUT', uri, [['name', 'eth0'], ['vlan', String(vlan.id)]], sim.userKey)), { name: 'eth0', vlan: { id: vlan.id } });
    const linked = ok<Json>(await call(sim, 'POST', `${uri}?op=link_subnet`, [['mode', 'STATIC'], ['subnet', String(subnet.id)]], sim.userKey));
    const link = (linked.links as Json[])[0] as Json;
    t.like(link, { mode: 'static', subnet: { id: subnet.id, cidr: subnet.cidr } });
    const ip = String(link.ip_address);
    t.true(ip.startsWith(String(subnet.cidr).replace(/0\/24$/, '')), ip);
    t.not(ip, subnet.gateway_ip);
    t.deepEqual(ok<Json>(await call(sim, 'GET', `devices/${String(device.system_id)}/`)).ip_addresses, [ip]);
    // The same address again is taken; one outside the subnet is refused.
    t.is((await call(sim, 'POST', `${uri}?op=link_subnet`, [['mode', 'static'], ['subnet', String(subnet.id)], ['ip_address', ip]])).text, 'IP address is already in use.');
    t.deepEqual(JSON.parse((await call(sim, 'POST', `${uri}?op=link_subnet`, [['mode', 'static'], ['subnet', String(subnet.id)], ['ip_address', '192.0.2.1']])).text), {
      ip_address: [`IP address is not in the given subnet '${String(subnet.cidr)}'.`],
    });
    t.is((await call(sim, 'PUT', uri, [['name', 'x']], sim.adminKey)).status, 200);
    t.is(ok<Json>(await call(sim, 'GET', `subnets/${String(subnet.id)}/?op=statistics`)).num_unavailable, 2);
    const unlinked = ok<Json>(await call(sim, 'POST', `${uri}?op=unlink_subnet`, [['id', String(link.id)]], sim.userKey));
    t.deepEqual(unlinked.links, []);
    t.deepEqual(ok(await call(sim, 'GET', 'static-routes/')), []);
  });
});

test('devices - create_physical and PUT take tags and mtu as InterfaceForm does: effective_mtu follows, bad values and taken names refused', async (t) => {
  await withSim(async (sim) => {
    const device = ok<Json>(await call(sim, 'POST', 'devices/', [['mac_addresses', '00:16:3e:00:02:01']], sim.userKey));
    const id = String(device.system_id);
    t.is(((device.interface_set as Json[])[0] as Json).params, '', 'a NIC made with its device has no params');
    const made = ok<Json>(await call(sim, 'POST', `nodes/${id}/interfaces/?op=create_physical`, [['name', 'eth1'], ['mac_address', '00:16:3e:00:02:02'], ['tags', 'a,b'], ['mtu', '9000']], sim.userKey));
    t.like(made, { name: 'eth1', tags: ['a', 'b'], effective_mtu: 9000, params: { mtu: 9000 } });
    const uri = `nodes/${id}/interfaces/${String(made.id)}/`;
    t.like(ok<Json>(await call(sim, 'PUT', uri, [['tags', 'c'], ['mtu', '']], sim.userKey)), { tags: ['c'], effective_mtu: 1500, params: {} });
    t.deepEqual(JSON.parse((await call(sim, 'PUT', uri, [['mtu', '100']], sim.userKey)).text), { mtu: ['Ensure this value is greater than or equal to 552.'] });
    t.deepEqual(JSON.parse((await call(sim, 'PUT', uri, [['mtu', 'big']], sim.userKey)).text), { mtu: ['Enter a whole number.'] });
    t.deepEqual(JSON.parse((await call(sim, 'PUT', uri, [['name', 'eth0']], sim.userKey)).text), { name: [`Node ${id} (${String(device.hostname)}) already has an interface named 'eth0'.`] });
    const again = await call(sim, 'POST', `nodes/${id}/interfaces/?op=create_physical`, [['name', 'eth1'], ['mac_address', '00:16:3e:00:02:03']], sim.userKey);
    t.is(again.status, 400);
    t.deepEqual(JSON.parse(again.text), { name: [`Node ${id} (${String(device.hostname)}) already has an interface named 'eth1'.`] });
    t.is(ok<Json[]>(await call(sim, 'GET', `nodes/${id}/interfaces/`, undefined, sim.userKey)).length, 2, 'a refused create adds nothing');
  });
});

test('devices - machine interfaces are readable under nodes/ but only device interfaces change', async (t) => {
  await withSim(async (sim) => {
    const a1 = idOf(sim, 'a1');
    const nics = ok<Json[]>(await call(sim, 'GET', `nodes/${a1}/interfaces/`));
    t.true(nics.length > 0);
    const first = nics[0] as Json;
    t.deepEqual(ok(await call(sim, 'GET', `nodes/${a1}/interfaces/${String(first.id)}/`)), first);
    t.is((await call(sim, 'PUT', `nodes/${a1}/interfaces/${String(first.id)}/`, [['name', 'x']])).status, 400);
    t.is((await call(sim, 'GET', 'nodes/nope00/interfaces/')).text, 'No Node matches the given query.');
    t.is((await call(sim, 'GET', `nodes/${a1}/interfaces/99999/`)).text, 'No Interface matches the given query.');
  });
});

test('dns resources - an address is shown as MAAS shows its USER_RESERVED row: in its subnet, as ipaddresses/ lists it', async (t) => {
  await withSim(async (sim) => {
    const subnets = ok<Json[]>(await call(sim, 'GET', 'subnets/'));
    const subnet = subnets[0] as Json;
    const inSubnet = String(subnet.cidr).replace(/0\/24$/, '200');
    // DNSResourceForm.save: StaticIPAddress(ip, alloc_type=USER_RESERVED, subnet=get_best_subnet_for_ip(ip), user).
    const created = ok<Json>(await call(sim, 'POST', 'dnsresources/', [['fqdn', 'api.maas'], ['address_ttl', '10'], ['ip_addresses', `${inSubnet} 192.0.2.7`]]));
    const [known, outside] = created.ip_addresses as Json[];
    t.like(known, { ip: inSubnet, alloc_type: 4, alloc_type_name: 'User reserved', subnet: { id: subnet.id, cidr: subnet.cidr } });
    t.like(outside, { ip: '192.0.2.7', subnet: null });
    // The same row as ipaddresses/ renders it (DNS resources' addresses are the admin's reservations there).
    const listed = ok<Json[]>(await call(sim, 'GET', `ipaddresses/?ip=${inSubnet}`));
    t.deepEqual(known, listed[0]);
    const read = ok<Json[]>(await call(sim, 'GET', 'dnsresources/?fqdn=api.maas'));
    t.deepEqual((read[0]?.ip_addresses as Json[])[0], listed[0]);
  });
});
