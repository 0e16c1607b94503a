// The calls and error rows of capmaas.md §3.2 against the simulated MAAS, over raw HTTP with
// PLAINTEXT OAuth written here (HMAC is covered in maas-auth.test.ts).
import test from 'ava';
import type { MaasSim, SeedMachine } from '../../src/sim/maas/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import type { Answer, Form } from '../support/maas-http.ts';
import { call } from '../support/maas-http.ts';


interface MachineJson {
  system_id: string;
  hostname: string;
  fqdn: string;
  status: number;
  status_name: string;
  power_state: string;
  power_type: string;
  owner: string | null;
  ip_addresses: string[];
  zone: { id: number; name: string; description: string; resource_uri: string };
  pool: { id: number; name: string; description: string; resource_uri: string };
  domain: { id: number; name: string; resource_uri: string };
  tag_names: string[];
  cpu_count: number;
  memory: number;
  storage: number;
  swap_size: number | null;
  osystem: string;
  distro_series: string;
  boot_interface: { id: number; name: string; type: string; children: string[] };
  parent: null;
  ephemeral_deploy: boolean;
  resource_uri: string;
}

interface DnsJson {
  id: number;
  fqdn: string;
  address_ttl: number | null;
  ip_addresses: Array<{ ip: string }>;
  resource_uri: string;
}

function json<T>(a: Answer): T {
  return JSON.parse(a.text) as T;
}

async function started(t: { teardown(fn: () => Promise<void>): void }, machines?: SeedMachine[]): Promise<MaasSim> {
  const sim = await startMaasSim({ machines, deployMs: 0, releaseMs: 0 });
  t.teardown(() => sim.stop());
  return sim;
}

function idOf(sim: MaasSim, hostname: string): string {
  const m = sim.machine(hostname);
  if (!m) throw new Error(`no machine ${hostname}`);
  return m.system_id;
}

const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

test('maas sim - the default fleet: 10+ Ready machines over az1/az2 and pools default/gpu, varied sizes and tags', async (t) => {
  const sim = await started(t);
  const machines = sim.machines();
  t.true(machines.length >= 10);
  t.true(machines.every((m) => m.status_name === 'Ready' && m.status === 4 && m.owner === null));
  t.deepEqual([...new Set(machines.map((m) => m.zone))].sort(), ['az1', 'az2']);
  t.deepEqual([...new Set(machines.map((m) => m.pool))].sort(), ['default', 'gpu']);
  t.true(new Set(machines.map((m) => m.cpu_count)).size >= 4);
  t.true(new Set(machines.map((m) => m.memory)).size >= 4);
  t.true(machines.filter((m) => m.tags.length >= 2).length >= 3);
  t.regex(sim.url, /^http:\/\/127\.0\.0\.1:\d+\/MAAS$/);
});

test('maas sim - GET a machine: the JSON fields of §3.3', async (t) => {
  const sim = await started(t);
  const id = idOf(sim, 'node-03');
  const r = await call(sim, 'GET', `machines/${id}/`);
  t.is(r.status, 200);
  t.is(r.type, JSON_TYPE);
  const m = json<MachineJson>(r);
  t.regex(m.system_id, /^[a-z0-9]{6}$/);
  t.like(m, {
    system_id: id, hostname: 'node-03', fqdn: 'node-03.maas', status: 4, status_name: 'Ready', power_state: 'off', power_type: 'ipmi',
    ip_addresses: [], cpu_count: 16, memory: 32768, swap_size: null, osystem: '', distro_series: '', parent: null, ephemeral_deploy: false,
    owner: null, resource_uri: `/MAAS/api/2.0/machines/${id}/`,
  });
  t.like(m.zone, { name: 'az1', description: '', resource_uri: '/MAAS/api/2.0/zones/az1/' });
  t.is(typeof m.zone.id, 'number');
  t.like(m.pool, { name: 'default', resource_uri: `/MAAS/api/2.0/resourcepool/${m.pool.id}/` });
  t.like(m.domain, { name: 'maas', id: 0 });
  t.deepEqual(m.tag_names, ['ssd', '10g']);
  t.like(m.boot_interface, { name: 'eth0', type: 'physical', children: [] });
  t.is(typeof m.storage, 'number');
});

test('maas sim - GET an unknown machine is 404 "No Machine matches the given query."', async (t) => {
  const sim = await started(t);
  const r = await call(sim, 'GET', 'machines/zzzzzz/');
  t.is(r.status, 404);
  t.is(r.type, TEXT);
  t.is(r.text, 'No Machine matches the given query.');
  for (const [method, path] of [['POST', 'machines/zzzzzz/?op=deploy'], ['POST', 'machines/zzzzzz/op-power_on'], ['PUT', 'machines/zzzzzz/'], ['DELETE', 'machines/zzzzzz/']] as const) {
    t.is((await call(sim, method, path)).status, 404, `${method} ${path}`);
  }
});

test('maas sim - list filters: hostname, id, zone, pool, each repeatable; unknown zone is 400; parent is no ReadNodesForm field', async (t) => {
  const sim = await started(t);
  const names = async (query: string) => json<MachineJson[]>(await call(sim, 'GET', `machines/${query}`)).map((m) => m.hostname).sort();
  t.is((await names('')).length, 12);
  t.deepEqual(await names('?hostname=node-01&hostname=gpu-02'), ['gpu-02', 'node-01']);
  t.deepEqual(await names(`?id=${idOf(sim, 'node-05')}`), ['node-05']);
  t.deepEqual(await names('?zone=az2&pool=gpu'), ['gpu-03', 'gpu-04']);
  t.deepEqual(await names('?pool=gpu&zone=az1&zone=az2'), ['gpu-01', 'gpu-02', 'gpu-03', 'gpu-04']);
  // MAAS 3.5's ReadNodesForm has no parent field, and the form is strict.
  const parent = await call(sim, 'GET', 'machines/?parent=abc123');
  t.deepEqual([parent.status, parent.text], [400, '{"parent": ["No such constraint."]}']);
  // A GET's parameters are its query string's: MAAS (Django's request.GET) ignores a form body.
  t.is(json<MachineJson[]>(await call(sim, 'GET', 'machines/', [['hostname', 'node-08']])).length, 12);
  const bad = await call(sim, 'GET', 'machines/?zone=moon');
  t.is(bad.status, 400);
  t.is(bad.text, '{"zone": ["No such zone(s): moon."]}');
});

test('maas sim - allocate keeps agent_name on the machine; GET machines/?agent_name= lists exactly those, until release', async (t) => {
  const sim = await started(t);
  const names = async (query: string) => json<MachineJson[]>(await call(sim, 'GET', `machines/${query}`)).map((m) => m.hostname).sort();
  const a = json<MachineJson>(await call(sim, 'POST', 'machines/', [['op', 'allocate'], ['agent_name', 'uid-a'], ['zone', 'az1']]));
  const b = json<MachineJson>(await call(sim, 'POST', 'machines/', [['agent_name', 'uid-b'], ['op', 'allocate'], ['zone', 'az1']]));
  t.not(a.hostname, b.hostname);
  t.is(sim.machine(a.hostname)?.agent_name, 'uid-a');
  t.deepEqual(await names('?agent_name=uid-a'), [a.hostname]);
  t.deepEqual(await names('?agent_name=uid-b'), [b.hostname]);
  t.deepEqual(await names('?agent_name=uid-c'), []);
  // An exact match (a Django filter), not a prefix; the last value given counts (QueryDict.get).
  t.deepEqual(await names('?agent_name=uid'), []);
  t.deepEqual(await names('?agent_name=uid-c&agent_name=uid-a'), [a.hostname]);
  t.is((await names('')).length, 12);
  // Deploy keeps it; a released machine loses it with its owner.
  t.is((await call(sim, 'POST', `machines/${a.system_id}/`, [['op', 'deploy']])).status, 200);
  t.deepEqual(await names('?agent_name=uid-a'), [a.hostname]);
  t.is((await call(sim, 'POST', `machines/${b.system_id}/`, [['op', 'release']])).status, 200);
  const deadline = Date.now() + 5_000;
  while (sim.machine(b.hostname)?.status_name !== 'Ready' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  t.deepEqual(await names('?agent_name=uid-b'), []);
  t.is(sim.machine(b.hostname)?.agent_name, '');
});

test('maas sim - op comes from the query string, the form body or an /op- path; unknown ones are 400', async (t) => {
  const sim = await started(t);
  const fromQuery = await call(sim, 'POST', 'machines/?op=allocate', [['zone', 'az1']]);
  t.is(fromQuery.status, 200, fromQuery.text);
  const fromBody = await call(sim, 'POST', 'machines/', [['op', 'allocate'], ['zone', 'az1']]);
  t.is(fromBody.status, 200, fromBody.text);
  const allocated = json<MachineJson>(fromBody);
  const fromPath = await call(sim, 'POST', `machines/${allocated.system_id}/op-power_on`);
  t.is(fromPath.status, 200, fromPath.text);
  t.is(json<MachineJson>(fromPath).status_name, 'Deploying');
  const c = sim.counts().byRoute;
  t.is(c['POST machines/ op=allocate'], 2);
  t.is(c['POST machines/{id}/ op=power_on'], 1);

  const cases: Array<[string, string, Form | undefined, string]> = [
    ['GET', 'machines/?op=foo', undefined, 'Unrecognised signature: method=GET op=foo'],
    ['POST', 'machines/', [['op', 'frobnicate']], 'Unrecognised signature: method=POST op=frobnicate'],
    ['POST', 'machines/', undefined, 'Unrecognised signature: method=POST op=None'],
    ['GET', 'machines/?op=allocate', undefined, 'Unrecognised signature: method=GET op=allocate'],
    ['POST', `machines/${allocated.system_id}/op-explode`, undefined, 'Unrecognised signature: method=POST op=explode'],
    ['PUT', `machines/${allocated.system_id}/?op=deploy`, undefined, 'Unrecognised signature: method=PUT op=deploy'],
    ['POST', 'dnsresources/?op=x', undefined, 'Unrecognised signature: method=POST op=x'],
  ];
  for (const [method, path, form, text] of cases) {
    const r = await call(sim, method, path, form);
    t.is(r.status, 400, `${method} ${path}`);
    t.is(r.type, TEXT);
    t.is(r.text, text);
  }
  t.is((await call(sim, 'PUT', 'machines/')).status, 405, 'no PUT on the collection');
  t.is((await call(sim, 'GET', 'no-such-thing/')).status, 404);
});

test('maas sim - allocate takes the cheapest matching Ready machine (cost = cpu_count + memory/1024)', async (t) => {
  const sim = await started(t);
  const allocate = async (form: Array<[string, string]>) => {
    const r = await call(sim, 'POST', 'machines/', [['op', 'allocate'], ...form]);
    t.is(r.status, 200, r.text);
    return json<MachineJson>(r);
  };
  // node-08: 2 + 4 = 6, the cheapest of all.
  t.is((await allocate([])).hostname, 'node-08');
  // node-01 and node-05 both cost 4 + 8 = 12: fleet order breaks the tie.
  t.is((await allocate([['cpu_count', '4']])).hostname, 'node-01');
  t.is((await allocate([['cpu_count', '4']])).hostname, 'node-05');
  // mem is MB, at least: node-03 (16 + 32) beats node-07 (16 + 64) and node-04 (32 + 64).
  t.is((await allocate([['mem', '20000']])).hostname, 'node-03');
  t.is((await allocate([['cpu_count', '16'], ['zone', 'az2'], ['pool', 'default']])).hostname, 'node-07');
  const gpu = await allocate([['pool', 'gpu']]);
  t.is(gpu.hostname, 'gpu-01');
  t.is(gpu.status, 10);
  t.is(gpu.status_name, 'Allocated');
  t.is(gpu.owner, 'admin');
  t.is(sim.machine('gpu-01')?.owner, 'admin');
});

test('maas sim - allocate with several tags needs all of them, repeated or comma/space separated', async (t) => {
  const sim = await started(t);
  const hostnameFor = async (form: Form | string) => {
    const r = await call(sim, 'POST', 'machines/', form);
    t.is(r.status, 200, r.text);
    return json<MachineJson>(r).hostname;
  };
  t.is(await hostnameFor('op=allocate&tags=ssd&tags=10g'), 'node-03');
  t.is(await hostnameFor('op=allocate&tags=ssd,10g'), 'node-07');
  t.is(await hostnameFor('op=allocate&tags=10g+ssd'), 'node-04');
  t.is(await hostnameFor([['op', 'allocate'], ['tags', 'gpu'], ['tags', 'nvidia'], ['tags', 'ssd']]), 'gpu-01');
  t.is(await hostnameFor([['op', 'allocate'], ['tags', 'gpu, nvidia ssd']]), 'gpu-04');
});

test('maas sim - a failed allocate is 409 with the constraints as MAAS quotes them', async (t) => {
  const sim = await started(t);
  const r = await call(sim, 'POST', 'machines/', 'op=allocate&cpu_count=4&mem=8192&tags=gpu&tags=amd&zone=az1');
  t.is(r.status, 409);
  t.is(r.type, TEXT);
  t.is(
    r.text,
    `No available machine matches constraints: [('cpu_count', ['4']), ('mem', ['8192']), ('tags', ['gpu', 'amd']), ('zone', ['az1'])] (resolved to "cpu_count=4.0 mem=8192.0 tags=amd,gpu zone=az1")`,
  );
  const pooled = await call(sim, 'POST', 'machines/', 'pool=gpu&cpu_count=128&op=allocate&agent_name=capmaas');
  t.is(pooled.status, 409);
  t.is(pooled.text, `No available machine matches constraints: [('pool', ['gpu']), ('cpu_count', ['128']), ('agent_name', ['capmaas'])] (resolved to "cpu_count=128.0 pool=gpu")`);
  t.true(sim.machines().every((m) => m.status_name === 'Ready'), 'nothing changed');
});

test('maas sim - allocate with no constraints and nothing Ready is 409 "No machine available."', async (t) => {
  const sim = await started(t, [
    { hostname: 'fresh', cpuCount: 4, memoryMb: 8192, status: 'New' },
    { hostname: 'taken', cpuCount: 4, memoryMb: 8192, status: 'Deployed' },
  ]);
  const r = await call(sim, 'POST', 'machines/', [['op', 'allocate']]);
  t.is(r.status, 409);
  t.is(r.text, 'No machine available.');
});

test('maas sim - allocate rejects unknown tags, zones, pools and constraints with a 400 form error', async (t) => {
  const sim = await started(t);
  const cases: Array<[string, string]> = [
    ['op=allocate&tags=ssd&tags=x', `{"tags": ["No such tag(s): 'x'."]}`],
    ['op=allocate&tags=y,x', `{"tags": ["No such tag(s): 'x', 'y'."]}`],
    ['op=allocate&zone=x', '{"zone": ["No such zone(s): x."]}'],
    ['op=allocate&pool=x', '{"pool": ["No such pool(s): x."]}'],
    ['op=allocate&cpu_count=many', '{"cpu_count": ["Invalid CPU count: number required."]}'],
    ['op=allocate&mem=lots', '{"mem": ["Invalid memory: number of MiB required."]}'],
    ['op=allocate&colour=red', '{"colour": ["No such constraint."]}'],
  ];
  for (const [form, body] of cases) {
    const r = await call(sim, 'POST', 'machines/', form);
    t.is(r.status, 400, form);
    t.is(r.type, JSON_TYPE);
    t.is(r.text, body, form);
  }
});

test('maas sim - allocate with the user key makes the user the owner; dry_run allocates nothing', async (t) => {
  const sim = await started(t);
  const dry = await call(sim, 'POST', 'machines/', 'op=allocate&dry_run=true&zone=az2');
  t.is(json<MachineJson>(dry).hostname, 'node-08');
  t.is(sim.machine('node-08')?.status_name, 'Ready');
  const r = await call(sim, 'POST', 'machines/', 'op=allocate&zone=az2', sim.userKey);
  t.is(r.status, 200);
  t.like(json<MachineJson>(r), { hostname: 'node-08', owner: 'user', status_name: 'Allocated' });
});

test('maas sim - PUT swap_size: bytes or K/M/G/T (powers of 1000); anything else is 400', async (t) => {
  const sim = await started(t);
  const id = idOf(sim, 'node-02');
  const swap = async (value: string) => call(sim, 'PUT', `machines/${id}/`, [['swap_size', value]]);
  for (const [value, bytes] of [['0', 0], ['4096', 4096], ['5K', 5000], ['2M', 2_000_000], ['3G', 3_000_000_000], ['5T', 5_000_000_000_000]] as const) {
    const r = await swap(value);
    t.is(r.status, 200, value);
    t.is(json<MachineJson>(r).swap_size, bytes, value);
  }
  const bad = await swap('5E');
  t.is(bad.status, 400);
  t.is(bad.text, '{"swap_size": ["Invalid size for swap: 5E"]}');
  t.is(sim.machine(id)?.swap_size, 5_000_000_000_000);
  t.is(json<MachineJson>(await swap('')).swap_size, null);
  const other = await call(sim, 'PUT', `machines/${id}/`, [['hostname', 'renamed'], ['zone', 'az2']]);
  t.like(json<MachineJson>(other), { hostname: 'renamed', fqdn: 'renamed.maas', zone: { name: 'az2' } });
  t.is((await call(sim, 'PUT', `machines/${id}/`, [['zone', 'moon']])).status, 400);
});

test('maas sim - PUT cpu_count (an admin field of the machine form) changes what the machine offers allocation; a bad value is a form error', async (t) => {
  const sim = await started(t);
  const id = idOf(sim, 'node-01');
  const r = await call(sim, 'PUT', `machines/${id}/`, [['cpu_count', '48']]);
  t.is(r.status, 200, r.text);
  t.is(json<MachineJson>(r).cpu_count, 48);
  t.is(sim.machine(id)?.cpu_count, 48);
  t.is(json<MachineJson>(await call(sim, 'POST', 'machines/', 'op=allocate&dry_run=true&cpu_count=48&pool=default')).hostname, 'node-01');
  t.is((await call(sim, 'PUT', `machines/${id}/`, [['cpu_count', '-1']])).text, '{"cpu_count": ["Ensure this value is greater than or equal to 0."]}');
  t.is((await call(sim, 'PUT', `machines/${id}/`, [['cpu_count', 'many']])).text, '{"cpu_count": ["Enter a whole number."]}');
  t.is(json<MachineJson>(await call(sim, 'PUT', `machines/${id}/`, [['cpu_count', '']])).cpu_count, 48, 'an empty value changes nothing');
});

test('maas sim - DELETE a machine is 204 and it is gone', async (t) => {
  const sim = await started(t);
  const id = idOf(sim, 'node-06');
  const r = await call(sim, 'DELETE', `machines/${id}/`);
  t.is(r.status, 204);
  t.is(r.text, '');
  t.is(sim.machine(id), undefined);
  t.is((await call(sim, 'GET', `machines/${id}/`)).status, 404);
});

test('maas sim - DNS: create with an empty address set, find by fqdn, PUT replaces the whole set, DELETE 204', async (t) => {
  const sim = await started(t);
  const created = await call(sim, 'POST', 'dnsresources/', [['address_ttl', '10'], ['fqdn', 'c1-3f9a2b.maas'], ['ip_addresses', '']]);
  t.is(created.status, 200, created.text);
  const dns = json<DnsJson>(created);
  t.like(dns, { fqdn: 'c1-3f9a2b.maas', address_ttl: 10, ip_addresses: [], resource_uri: `/MAAS/api/2.0/dnsresources/${dns.id}/` });

  const found = json<DnsJson[]>(await call(sim, 'GET', 'dnsresources/?fqdn=c1-3f9a2b.maas'));
  t.deepEqual(found.map((d) => d.id), [dns.id]);
  t.deepEqual(json<DnsJson[]>(await call(sim, 'GET', 'dnsresources/?fqdn=other.maas')), []);
  t.deepEqual(json<DnsJson[]>(await call(sim, 'GET', 'dnsresources/?name=c1-3f9a2b&domain=maas')).length, 1);
  t.deepEqual(json<DnsJson[]>(await call(sim, 'GET', 'dnsresources/?domain=0')).length, 1, 'a domain by id');

  const put = async (ips: string) => call(sim, 'PUT', `dnsresources/${dns.id}/`, [['id', String(dns.id)], ['ip_addresses', ips]]);
  t.deepEqual(json<DnsJson>(await put('10.10.1.10 10.10.2.10')).ip_addresses.map((a) => a.ip), ['10.10.1.10', '10.10.2.10']);
  t.deepEqual(json<DnsJson>(await put('10.10.2.11')).ip_addresses.map((a) => a.ip), ['10.10.2.11']);
  t.deepEqual(sim.dnsResources(), [{ id: dns.id, fqdn: 'c1-3f9a2b.maas', addressTtl: 10, ips: ['10.10.2.11'] }]);
  // CAPMAAS always PUTs, even an empty set: that wipes the records.
  t.deepEqual(json<DnsJson>(await put('')).ip_addresses, []);
  t.like(json<DnsJson>(await call(sim, 'GET', `dnsresources/${dns.id}/`)), { id: dns.id, address_ttl: 10 });
  const ttl = await call(sim, 'PUT', `dnsresources/${dns.id}/`, [['address_ttl', '30']]);
  t.is(json<DnsJson>(ttl).address_ttl, 30);

  const del = await call(sim, 'DELETE', `dnsresources/${dns.id}/`);
  t.is(del.status, 204);
  t.deepEqual(sim.dnsResources(), []);
  const gone = await call(sim, 'GET', `dnsresources/${dns.id}/`);
  t.is(gone.status, 404);
  t.is(gone.text, 'No DNSResource matches the given query.');
  t.is((await put('10.0.0.1')).status, 404);
});

test('maas sim - DNS in a domain that does not exist: 404 on list, 400 on create', async (t) => {
  const sim = await startMaasSim({ domains: ['maas', 'example.com'] });
  t.teardown(() => sim.stop());
  const list = await call(sim, 'GET', 'dnsresources/?fqdn=api.nowhere.test');
  t.is(list.status, 404);
  t.is(list.type, TEXT);
  t.is(list.text, 'No Domain matches the given query.');
  t.is((await call(sim, 'GET', 'dnsresources/?domain=nowhere.test')).status, 404);
  const create = await call(sim, 'POST', 'dnsresources/', [['fqdn', 'api.nowhere.test'], ['ip_addresses', '']]);
  t.is(create.status, 400);
  t.is(create.type, JSON_TYPE);
  t.true(create.text.startsWith('{"domain": ['));
  const ok = await call(sim, 'POST', 'dnsresources/', [['name', 'api'], ['domain', 'example.com'], ['ip_addresses', '192.0.2.1 2001:db8::1']]);
  t.is(ok.status, 200, ok.text);
  t.like(json<DnsJson>(ok), { fqdn: 'api.example.com', address_ttl: null });
});

test('maas sim - DNS create errors: duplicate name, bad address, bad ttl', async (t) => {
  const sim = await started(t);
  t.is((await call(sim, 'POST', 'dnsresources/', [['fqdn', 'api.maas']])).status, 200);
  const cases: Array<[Array<[string, string]>, string]> = [
    [[['fqdn', 'api.maas']], '__all__'],
    [[['fqdn', 'web.maas'], ['ip_addresses', '10.0.0.300']], 'ip_addresses'],
    [[['fqdn', 'web.maas'], ['address_ttl', 'soon']], 'address_ttl'],
  ];
  for (const [form, field] of cases) {
    const r = await call(sim, 'POST', 'dnsresources/', form);
    t.is(r.status, 400, field);
    t.true(Object.hasOwn(json<Record<string, string[]>>(r), field), r.text);
  }
  t.is(sim.dnsResources().length, 1);
});

test('maas sim - tags: list, create (admin), op-update_nodes adds and removes, and allocate sees the change', async (t) => {
  const sim = await started(t);
  const names = json<Array<{ name: string }>>(await call(sim, 'GET', 'tags/')).map((tag) => tag.name);
  t.true(names.includes('gpu') && names.includes('ssd'));
  t.like(json<{ name: string; resource_uri: string }>(await call(sim, 'GET', 'tags/ssd/')), { name: 'ssd', resource_uri: '/MAAS/api/2.0/tags/ssd/' });
  const missing = await call(sim, 'GET', 'tags/nope/');
  t.is(missing.status, 404);
  t.is(missing.text, 'No Tag matches the given query.');

  // A tag that exists but is on no machine: allocate finds nothing (409), it is not an unknown tag (400).
  t.is((await call(sim, 'POST', 'tags/', [['name', 'maintenance']], sim.userKey)).status, 403);
  t.is((await call(sim, 'POST', 'tags/', [['name', 'maintenance'], ['comment', 'held back']])).status, 200);
  t.is((await call(sim, 'POST', 'tags/', [['name', 'maintenance']])).status, 400);
  t.is((await call(sim, 'POST', 'machines/', 'op=allocate&tags=maintenance')).status, 409);

  const a = idOf(sim, 'node-02');
  const b = idOf(sim, 'node-06');
  const update = await call(sim, 'POST', 'tags/maintenance/op-update_nodes', [['add', a], ['add', b], ['add', 'zzzzzz']]);
  t.is(update.status, 200, update.text);
  t.deepEqual(json<{ added: number; removed: number }>(update), { added: 2, removed: 0 });
  t.deepEqual(sim.machine(a)?.tags, ['ssd', 'maintenance']);
  t.is(json<MachineJson>(await call(sim, 'POST', 'machines/', 'op=allocate&tags=maintenance')).hostname, 'node-02');
  const removed = await call(sim, 'POST', 'tags/maintenance/', [['op', 'update_nodes'], ['remove', b]]);
  t.deepEqual(json<{ added: number; removed: number }>(removed), { added: 0, removed: 1 });
  t.deepEqual(sim.machine(b)?.tags, ['ssd']);
  t.is((await call(sim, 'POST', 'tags/maintenance/op-update_nodes', [['add', b]], sim.userKey)).status, 403);
  const stale = await call(sim, 'POST', 'tags/maintenance/op-update_nodes', [['add', b], ['definition', '//node']]);
  t.is(stale.status, 409);
  t.is(stale.text, "Definition supplied '//node' doesn't match current definition ''");
});

test('maas sim - startMaasSim refuses bad machines, keys and timings with the field named', async (t) => {
  await t.throwsAsync(startMaasSim({ machines: [{ hostname: 'a', cpuCount: 1, memoryMb: 1 }, { hostname: 'A', cpuCount: 1, memoryMb: 1 }] }), { message: /machines: \[1\]\.hostname: "A" is already the hostname of machine \[0\]/ });
  await t.throwsAsync(startMaasSim({ machines: [{ hostname: 'a', cpuCount: 0, memoryMb: 1 }] }), { message: /machines: \[0\]\.cpuCount: must be at least 1/ });
  await t.throwsAsync(startMaasSim({ keys: { admin: 'only-two:parts' } }), { message: /keys\.admin/ });
  await t.throwsAsync(startMaasSim({ deployMs: -1 }), { message: /deployMs/ });
  await t.throwsAsync(startMaasSim({ port: 70_000 }), { message: /port/ });
});
