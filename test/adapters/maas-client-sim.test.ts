import { inspect } from 'node:util';
import test from 'ava';
import { createMaasClient, encodeForm, formPairs, MaasError, oauthAuthorization, parseApiKey, splitImage } from '../../src/adapters/maas/client/index.ts';
import type { FormPairs, MaasClient, MaasClientOptions, MaasMachine } from '../../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../../src/adapters/maas/driver/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import type { MaasSim, MaasSimOptions } from '../../src/sim/maas/index.ts';

// Every call against the MAAS simulator (src/sim/maas), which shares no code with the client
// and checks the OAuth signature. Each test starts its own simulator with the default fleet:
// 12 Ready machines in zones az1/az2, pools default/gpu, domain maas.

const USER_DATA = '#cloud-config\nruncmd:\n  - echo join --token sim-user-data-secret-token\n';
const USER_DATA_B64 = Buffer.from(USER_DATA).toString('base64');
const FAST = { attempts: 3, baseMs: 5, maxMs: 20 };

interface Env {
  sim: MaasSim;
  admin: MaasClient;
  user: MaasClient;
  client(o?: Partial<MaasClientOptions>): MaasClient;
}

async function withSim(fn: (e: Env) => Promise<void>, simOptions: MaasSimOptions = {}): Promise<void> {
  const sim = await startMaasSim({ deployMs: 50, releaseMs: 20, ...simOptions });
  const clients: MaasClient[] = [];
  const client = (o: Partial<MaasClientOptions> = {}): MaasClient => {
    const c = createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey, retries: FAST, timeoutMs: 5_000, ...o });
    clients.push(c);
    return c;
  };
  try {
    await fn({ sim, admin: client(), user: client({ apiKey: sim.userKey }), client });
  } finally {
    for (const c of clients) c.close();
    await sim.stop();
  }
}

/** Polls the machine through the client until `done` holds; fails with its last state. */
async function waitForMachine(c: MaasClient, id: string, done: (m: MaasMachine) => boolean, what: string, timeoutMs = 5_000): Promise<MaasMachine> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = await c.getMachine(id);
    if (m !== null && done(m)) return m;
    if (Date.now() > deadline) throw new Error(`${id}: not ${what} after ${timeoutMs} ms; last ${m?.status_name}, power ${m?.power_state}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function secretsOf(key: string): string[] {
  return [...key.split(':'), key];
}

function assertNoSecret(t: { false: (v: boolean, m?: string) => void }, err: unknown, secrets: string[]): void {
  const parts: string[] = [inspect(err, { depth: 10 }), JSON.stringify(err)];
  for (let e: unknown = err; e instanceof Error; e = e.cause) parts.push(e.message, e.stack ?? '');
  const text = parts.join('\n');
  for (const s of secrets) t.false(text.includes(s), `no ${s.slice(0, 5)}… in the error`);
}

test('maas client - sim: allocate by constraints takes the cheapest match and owns it', async (t) => {
  await withSim(async ({ sim, admin }) => {
    const m = await admin.allocate({ cpuCount: 8, memMb: 16384, zone: 'az1', tags: ['ssd'] });
    t.is(m.hostname, 'node-02');
    t.is(m.status_name, 'Allocated');
    t.is(m.status, 10);
    t.is(m.zone.name, 'az1');
    t.not(m.owner, null);
    t.is(sim.machine(m.system_id)?.status_name, 'Allocated');
    // Both tags must match: node-03 is the cheapest in az1 with ssd and 10g.
    const two = await admin.allocate({ zone: 'az1', tags: ['ssd', '10g'] });
    t.is(two.hostname, 'node-03');
    t.deepEqual([...two.tag_names].sort(), ['10g', 'ssd']);
    const pooled = await admin.allocate({ pool: 'gpu', cpuCount: 40 });
    t.is(pooled.hostname, 'gpu-04');
    t.is(pooled.pool.name, 'gpu');
    t.is(admin.stats.byRoute['POST /machines/ op=allocate'], 3);
  });
});

test('maas client - sim: allocate that nothing matches is no-match; an unknown tag or zone is a form error', async (t) => {
  await withSim(async ({ admin }) => {
    const none = await t.throwsAsync(admin.allocate({ cpuCount: 1000, tags: ['gpu'] }), { instanceOf: MaasError });
    t.is(none?.code, 'no-match');
    t.is(none?.status, 409);
    t.false(none?.retryable);
    t.regex(none?.maasMessage ?? '', /^No available machine matches constraints: /);
    t.regex(none?.message ?? '', /^POST \/machines\/ op=allocate: MAAS answered HTTP 409: No available machine matches constraints/);
    const tag = await t.throwsAsync(admin.allocate({ tags: ['ssd', 'no-such-tag'] }), { instanceOf: MaasError });
    t.is(tag?.code, 'bad-request');
    t.true((tag?.formErrors?.tags ?? []).some((m) => m.includes('no-such-tag')), JSON.stringify(tag?.formErrors));
    const zone = await t.throwsAsync(admin.allocate({ zone: 'mars' }), { instanceOf: MaasError });
    t.is(zone?.code, 'bad-request');
    t.truthy(zone?.formErrors?.zone);
  });
});

test('maas client - sim: get and list machines, with filters; a missing machine is null', async (t) => {
  await withSim(async ({ sim, admin }) => {
    const all = await admin.listMachines();
    t.is(all.length, sim.machines().length);
    t.true(all.every((m) => m.status_name === 'Ready' && m.domain.name === 'maas'));
    const byName = await admin.listMachines({ hostname: ['node-01', 'gpu-02'] });
    t.deepEqual(byName.map((m) => m.hostname).sort(), ['gpu-02', 'node-01']);
    const gpuAz2 = await admin.listMachines({ zone: 'az2', pool: 'gpu' });
    t.deepEqual(gpuAz2.map((m) => m.hostname).sort(), ['gpu-03', 'gpu-04']);
    const one = byName.find((m) => m.hostname === 'node-01') as MaasMachine;
    const got = await admin.getMachine(one.system_id);
    t.is(got?.system_id, one.system_id);
    t.is(got?.fqdn, 'node-01.maas');
    t.is(got?.cpu_count, 4);
    t.is(got?.memory, 8192);
    t.is(await admin.getMachine('zzzz99'), null);
    t.deepEqual(admin.stats.byRoute, { 'GET /machines/': 3, 'GET /machines/{id}/': 2 });
  });
});

test('maas client - sim: an allocation tagged with an agent name is found by it, and only by it (driver findAllocated)', async (t) => {
  await withSim(async ({ sim, admin }) => {
    const driver = createMaasDriver(admin);
    const a = await driver.run({ op: 'allocate', agentName: 'uid-a', cpuCount: 1, memMb: 1024, zone: 'az1' });
    const b = await admin.allocate({ agentName: 'uid-b', zone: 'az1' });
    if (a.kind !== 'done' || !a.machine) throw new Error(`allocate: ${JSON.stringify(a)}`);
    t.is(sim.machine(a.machine.hostname)?.agent_name, 'uid-a');
    t.deepEqual((await admin.listMachines({ agentName: 'uid-b' })).map((m) => m.system_id), [b.system_id]);
    const found = await driver.run({ op: 'findAllocated', agentName: 'uid-a' });
    t.deepEqual(found, { kind: 'listed', machines: [{ ...a.machine }] });
    t.deepEqual(await driver.run({ op: 'findAllocated', agentName: 'uid-c' }), { kind: 'listed', machines: [] });
    t.is(sim.counts().byRoute['POST machines/ op=allocate'], 2);
  });
});

test('maas client - sim: swap_size 0 with the admin key; the user key is forbidden', async (t) => {
  await withSim(async ({ sim, admin, user }) => {
    const m = await user.allocate({ cpuCount: 2 });
    const err = await t.throwsAsync(user.updateMachine(m.system_id, { swapSize: 0 }), { instanceOf: MaasError });
    t.is(err?.code, 'forbidden');
    t.is(err?.status, 403);
    t.is(err?.route, 'PUT /machines/{id}/');
    t.regex(err?.message ?? '', /need a MAAS admin/);
    const updated = await admin.updateMachine(m.system_id, { swapSize: 0 });
    t.is(updated.swap_size, 0);
    t.is(sim.machine(m.system_id)?.swap_size, 0);
    // MAAS reads size suffixes in powers of 1000 (machine_readable_bytes).
    t.is((await admin.updateMachine(m.system_id, { swapSize: '1G' })).swap_size, 1_000_000_000);
    t.is((await admin.updateMachine(m.system_id, { hostname: 'renamed-1' })).hostname, 'renamed-1');
  });
});

test('maas client - sim: deploy with base64 user data and a split image, then Deployed and powered on', async (t) => {
  await withSim(async ({ sim, admin }) => {
    const m = await admin.allocate({ cpuCount: 4, zone: 'az2' });
    const { osystem, distroSeries } = splitImage('ubuntu/jammy');
    const d = await admin.deploy(m.system_id, { userDataBase64: USER_DATA_B64, osystem, distroSeries, ephemeralDeploy: false, comment: 'metalfleet test' });
    t.is(d.status_name, 'Deploying');
    t.is(d.distro_series, 'jammy');
    t.is(d.osystem, 'ubuntu');
    t.is(sim.machine(m.system_id)?.user_data, USER_DATA, 'MAAS got the user data intact');
    const done = await waitForMachine(admin, m.system_id, (x) => x.status_name === 'Deployed', 'Deployed');
    t.is(done.power_state, 'on');
    t.true(done.ip_addresses.length > 0);
    // A second deploy of a Deployed machine is MAAS's 409.
    const again = await t.throwsAsync(admin.deploy(m.system_id, { userDataBase64: USER_DATA_B64, distroSeries: 'jammy' }), { instanceOf: MaasError });
    t.is(again?.code, 'conflict');
    t.is(again?.attempts, 1);
    assertNoSecret(t, again, [USER_DATA_B64, 'sim-user-data-secret-token', ...secretsOf(sim.adminKey)]);
  });
});

test('maas client - sim: in-memory deploy of a custom image', async (t) => {
  await withSim(async ({ sim, admin }) => {
    const m = await admin.allocate({ cpuCount: 2 });
    const image = splitImage('custom/u-2204-0-k-1296-0');
    const d = await admin.deploy(m.system_id, { userDataBase64: USER_DATA_B64, osystem: image.osystem, distroSeries: image.distroSeries, ephemeralDeploy: true });
    t.is(d.status_name, 'Deploying');
    t.is(sim.machine(m.system_id)?.ephemeral_deploy, true);
    t.is(sim.machine(m.system_id)?.distro_series, 'u-2204-0-k-1296-0');
    const done = await waitForMachine(admin, m.system_id, (x) => x.status_name === 'Deployed', 'Deployed');
    if (done.ephemeral_deploy !== undefined) t.true(done.ephemeral_deploy);
  }, { bootResources: [{ name: 'custom/u-2204-0-k-1296-0' }] });
});

test('maas client - sim: release goes back to Ready without an owner', async (t) => {
  await withSim(async ({ admin }) => {
    const m = await admin.allocate({ cpuCount: 2 });
    await admin.deploy(m.system_id, { userDataBase64: USER_DATA_B64, distroSeries: 'jammy' });
    await waitForMachine(admin, m.system_id, (x) => x.status_name === 'Deployed', 'Deployed');
    const r = await admin.release(m.system_id, { comment: 'done' });
    t.true(['Releasing', 'Disk erasing', 'Ready'].includes(r.status_name), r.status_name);
    const ready = await waitForMachine(admin, m.system_id, (x) => x.status_name === 'Ready', 'Ready');
    t.is(ready.owner, null);
    // Releasing a Ready machine is a no-op, as in MAAS.
    t.is((await admin.release(m.system_id)).status_name, 'Ready');
    const erased = await admin.allocate({ cpuCount: 2 });
    const e = await admin.release(erased.system_id, { erase: true });
    t.true(['Disk erasing', 'Ready'].includes(e.status_name), e.status_name);
    await waitForMachine(admin, erased.system_id, (x) => x.status_name === 'Ready', 'Ready after erase');
  });
});

test('maas client - sim: power on a Deployed machine that turned itself off; a Ready one is a conflict', async (t) => {
  await withSim(async ({ sim, admin }) => {
    const m = await admin.allocate({ cpuCount: 2 });
    await admin.deploy(m.system_id, { distroSeries: 'jammy' });
    await waitForMachine(admin, m.system_id, (x) => x.status_name === 'Deployed' && x.power_state === 'on', 'Deployed and on');
    sim.powerOff(m.system_id);
    t.is((await admin.getMachine(m.system_id))?.power_state, 'off');
    const on = await admin.powerOn(m.system_id, { comment: 'CAPMAAS would power it on' });
    t.is(on.status_name, 'Deployed');
    await waitForMachine(admin, m.system_id, (x) => x.power_state === 'on', 'on again');
    t.is(admin.stats.byRoute['POST /machines/{id}/op-power_on'], 1);
    const ready = (await admin.listMachines({ hostname: ['node-05'] }))[0] as MaasMachine;
    const err = await t.throwsAsync(admin.powerOn(ready.system_id), { instanceOf: MaasError });
    t.is(err?.code, 'conflict');
    t.regex(err?.maasMessage ?? '', /allocated/i);
  });
});

test('maas client - sim: DNS list, create empty, update replaces the set, empty wipes, delete', async (t) => {
  await withSim(async ({ sim, admin }) => {
    const fqdn = 'c1-3f9a2b.maas';
    t.deepEqual(await admin.listDnsResources({ fqdn }), []);
    const created = await admin.createDnsResource({ fqdn, addressTtl: 10, ipAddresses: [] });
    t.is(created.fqdn, fqdn);
    t.is(created.address_ttl, 10);
    t.deepEqual(created.ip_addresses, []);
    const listed = await admin.listDnsResources({ fqdn });
    t.deepEqual(listed.map((d) => d.id), [created.id]);
    const two = await admin.updateDnsResource(created.id, { ipAddresses: ['10.0.0.5', '10.0.0.6'] });
    t.deepEqual(two.ip_addresses.map((i) => i.ip).sort(), ['10.0.0.5', '10.0.0.6']);
    const one = await admin.updateDnsResource(created.id, { ipAddresses: ['10.0.0.6'] });
    t.deepEqual(one.ip_addresses.map((i) => i.ip), ['10.0.0.6']);
    t.deepEqual(sim.dnsResources().find((d) => d.id === created.id)?.ips, ['10.0.0.6']);
    const wiped = await admin.updateDnsResource(created.id, { ipAddresses: [] });
    t.deepEqual(wiped.ip_addresses, []);
    t.deepEqual((await admin.listDnsResources({ domain: 'maas', name: 'c1-3f9a2b' })).map((d) => d.id), [created.id]);
    await admin.deleteDnsResource(created.id);
    t.deepEqual(await admin.listDnsResources({ fqdn }), []);
    t.is(sim.dnsResources().some((d) => d.id === created.id), false);
    await admin.deleteDnsResource(created.id);
    t.deepEqual(admin.stats.byRoute, {
      'GET /dnsresources/': 4,
      'POST /dnsresources/': 1,
      'PUT /dnsresources/{id}/': 3,
      'DELETE /dnsresources/{id}/': 2,
    });
  });
});

test('maas client - sim: DNS writes with the user key are forbidden; an unknown domain is not-found', async (t) => {
  await withSim(async ({ admin, user }) => {
    const err = await t.throwsAsync(user.createDnsResource({ fqdn: 'c2-aaaaaa.maas', ipAddresses: ['10.0.0.9'] }), { instanceOf: MaasError });
    t.is(err?.code, 'forbidden');
    const missing = await t.throwsAsync(admin.listDnsResources({ fqdn: 'c3-bbbbbb.nosuchdomain' }), { instanceOf: MaasError });
    t.is(missing?.code, 'not-found');
    t.is(missing?.status, 404);
    t.is(missing?.maasMessage, 'No Domain matches the given query.');
    t.is(missing?.call, 'GET /dnsresources/?fqdn=c3-bbbbbb.nosuchdomain');
  });
});

test('maas client - sim: a wrong secret is unauthorized, with either signature, and the key is not in the error', async (t) => {
  await withSim(async ({ sim, client }) => {
    const [ck, tk, ts] = sim.adminKey.split(':') as [string, string, string];
    const wrong = `${ck}:${tk}:${ts.slice(0, -4)}beef`;
    for (const signature of ['PLAINTEXT', 'HMAC-SHA1'] as const) {
      const c = client({ apiKey: wrong, signature });
      const err = await t.throwsAsync(c.deploy('abcdef', { userDataBase64: USER_DATA_B64, distroSeries: 'jammy' }), { instanceOf: MaasError });
      t.is(err?.code, 'unauthorized', signature);
      t.is(err?.status, 401);
      t.false(err?.retryable);
      t.regex(err?.message ?? '', /check MAAS_API_KEY/);
      assertNoSecret(t, err, [...secretsOf(wrong), ...secretsOf(sim.adminKey), USER_DATA_B64, 'sim-user-data-secret-token']);
    }
    const unknown = client({ apiKey: 'nosuchconsumer0000:nosuchtoken0000000:nosuchsecret00000000000000000000' });
    t.is((await t.throwsAsync(unknown.listMachines(), { instanceOf: MaasError }))?.code, 'unauthorized');
  });
});

test('maas client - sim: HMAC-SHA1 is accepted for every kind of call, multi tags included', async (t) => {
  await withSim(async ({ sim, client }) => {
    const c = client({ signature: 'HMAC-SHA1' });
    const m = await c.allocate({ zone: 'az2', tags: ['nvidia', 'gpu', 'ssd'], cpuCount: 8, memMb: 1024 });
    t.is(m.hostname, 'gpu-04');
    t.deepEqual(await c.listMachines({ hostname: ['gpu-04', 'node-01'], zone: 'az2' }).then((l) => l.map((x) => x.hostname)), ['gpu-04']);
    t.is((await c.updateMachine(m.system_id, { swapSize: 0, hostname: 'gpu-04-renamed' })).swap_size, 0);
    t.is((await c.deploy(m.system_id, { userDataBase64: USER_DATA_B64, distroSeries: 'jammy', comment: "it's * (HMAC) ~ ok!" })).status_name, 'Deploying');
    await waitForMachine(c, m.system_id, (x) => x.status_name === 'Deployed', 'Deployed');
    sim.powerOff(m.system_id);
    t.is((await c.powerOn(m.system_id, { comment: 'a b&c=d' })).system_id, m.system_id);
    const d = await c.createDnsResource({ fqdn: 'hmac-1.maas', addressTtl: 10, ipAddresses: ['10.1.0.1'] });
    await c.updateDnsResource(d.id, { ipAddresses: ['10.1.0.2', '10.1.0.3'], addressTtl: 30 });
    t.is((await c.listDnsResources({ fqdn: 'hmac-1.maas' }))[0]?.address_ttl, 30);
    await c.deleteDnsResource(d.id);
    t.is((await c.release(m.system_id, { force: true })).system_id, m.system_id);
  });
});

test('maas client - sim: injected 503s are retried inside the client; past the retries they are unavailable', async (t) => {
  await withSim(async ({ sim, admin }) => {
    // The simulator answers 503 when random() < rate: fail twice, then succeed.
    const draws = [0, 0];
    sim.setFaults({ serverErrorRate: 0.5, random: () => draws.shift() ?? 0.99 });
    const m = await admin.allocate({ cpuCount: 2 });
    t.is(m.status_name, 'Allocated');
    t.is(admin.stats.byRoute['POST /machines/ op=allocate'], 3);
    t.is(admin.stats.retries, 2);
    t.is(sim.machines().filter((x) => x.status_name === 'Allocated').length, 1, 'one allocation, not three');
    sim.setFaults({ serverErrorRate: 1, random: () => 0 });
    const err = await t.throwsAsync(admin.getMachine(m.system_id), { instanceOf: MaasError });
    t.is(err?.code, 'unavailable');
    t.true(err?.retryable);
    t.is(err?.attempts, 3);
    t.is(err?.status, 503);
  });
});

test('maas client - sim: the client\'s request counts agree with the simulator\'s', async (t) => {
  await withSim(async ({ sim, admin }) => {
    sim.resetCounts();
    const m = await admin.allocate({ cpuCount: 2 });
    await admin.getMachine(m.system_id);
    await admin.listMachines();
    await admin.release(m.system_id);
    t.is(sim.counts().requests, admin.stats.total);
    t.is(admin.stats.total, 4);
  });
});

test('maas client - sim: the pre-#333 mis-signing (one tag signed, two sent) is refused, so the HMAC test means something', async (t) => {
  await withSim(async ({ sim }) => {
    const url = `${sim.url}/api/2.0/machines/`;
    const sent = formPairs({ op: 'allocate', tags: ['gpu', 'nvidia'] });
    const send = async (signed: FormPairs): Promise<number> => {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          Accept: 'application/json',
          'Content-Type': 'application/x-www-form-urlencoded',
          Authorization: oauthAuthorization(parseApiKey(sim.adminKey), 'HMAC-SHA1', { method: 'POST', url, form: signed }),
        },
        body: encodeForm(sent),
      });
      await res.arrayBuffer();
      return res.status;
    };
    t.is(await send(formPairs({ op: 'allocate', tags: ['nvidia'] })), 401);
    t.is(await send(sent), 200);
  });
});
