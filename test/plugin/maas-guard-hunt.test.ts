// A MaasMachine plugin's driver, hunted: its answers are checked, its throws (even synchronous
// ones) and hangs come back as the driver's retryable failure naming the plugin and the method,
// and no message passed on carries the MAAS API key or a credential-named option. A BareMetalHost
// plugin's capacity() that throws or answers nonsense gives a safe claim, not a crashed host actor.
import test from 'ava';
import { ProvisionerRegistry } from '../../src/plugin/index.ts';
import type { HostData, MaasDriver } from '../../src/plugin/index.ts';
import { MetalfleetError } from '../../src/api/index.ts';
import { silentLogger } from '../../src/ports/index.ts';

const KEY = 'ConsumerKey1234567:TokenKey1234567890:SecretPart1234567890abcdefghijkl';
const ctx = { options: { apiKey: KEY, endpoint: 'http://maas.lab:5240/MAAS', zone: 'lab' }, log: silentLogger };
const never = (): Promise<never> => new Promise(() => undefined);
const record = { id: 1, fqdn: 'api.lab', ips: ['10.0.0.1'] };

function baseDriver(): Record<string, unknown> {
  return {
    endpoint: 'http://maas.lab:5240/MAAS', pool: 'maas:lab',
    run: async () => ({ kind: 'done' }),
    findDns: async () => record, createDns: async () => record, updateDns: async () => record, deleteDns: async () => undefined,
  };
}

async function driverOf(over: Record<string, unknown>, o: { callTimeoutMs?: number; source?: string } = {}): Promise<MaasDriver> {
  const registry = new ProvisionerRegistry({ callTimeoutMs: o.callTimeoutMs ?? 1_000 });
  const made = { ...baseDriver(), ...over };
  registry.register({ name: 'lab-maas', contractVersion: 1, resource: 'MaasMachine', supports: { operations: ['allocate'] }, create: () => made }, o.source ?? 'lab-maas.mjs');
  return registry.createMaasDriver('lab-maas', ctx);
}

const PLUGIN = 'provisioner plugin lab-maas (lab-maas.mjs)';

function leaks(text: string): boolean {
  return KEY.split(':').some((part) => text.includes(part));
}

test('maas guard hunt - a run that throws synchronously is a transient result, not a crash, and carries no part of the key', async (t) => {
  const driver = await driverOf({ run: () => { throw new Error(`MAAS said no to key ${KEY}`); } });
  let result: unknown;
  await t.notThrowsAsync(async () => { result = await driver.run({ op: 'get', systemId: 'abc' }); });
  t.deepEqual(result, { kind: 'transient', message: 'MAAS said no to key [redacted]' });
});

test('maas guard hunt - a run that never answers is a transient result after the call timeout, naming the plugin', async (t) => {
  t.timeout(5_000);
  const driver = await driverOf({ run: never }, { callTimeoutMs: 20 });
  t.deepEqual(await driver.run({ op: 'get', systemId: 'abc' }), { kind: 'transient', message: `${PLUGIN}: run did not answer within 0.02 s` });
});

test('maas guard hunt - a run answering something not a MaasResult is a failed result naming the plugin and the op', async (t) => {
  for (const bad of [undefined, 'done', { kind: 'ok' }, { kind: 'done', machine: { systemId: 1 } }, { kind: 'listed' }]) {
    const driver = await driverOf({ run: async () => bad });
    const result = await driver.run({ op: 'allocate', agentName: 'a', cpuCount: 1, memMb: 1 });
    t.is(result.kind, 'failed', JSON.stringify(bad));
    t.true(result.kind === 'failed' && result.message.startsWith(`${PLUGIN}: run answered `) && result.message.endsWith('not a MaasResult (the plugin must be fixed)'), JSON.stringify(result));
  }
});

test('maas guard hunt - a good MaasResult passes unchanged; a failed one has the key and credential options redacted', async (t) => {
  const view = { systemId: 'abc', hostname: 'n1', fqdn: 'n1.lab', statusName: 'Deployed', powerState: 'on', ipAddresses: ['10.0.0.5'], zone: 'lab' };
  t.deepEqual(await (await driverOf({ run: async () => ({ kind: 'done', machine: view }) })).run({ op: 'get', systemId: 'abc' }), { kind: 'done', machine: view });
  const [consumer, token, secret] = KEY.split(':');
  const driver = await driverOf({ run: async () => ({ kind: 'failed', reason: 'forbidden', message: `403 for ${consumer} token ${token} sig ${secret}&` }) });
  const result = await driver.run({ op: 'get', systemId: 'abc' });
  t.deepEqual(result, { kind: 'failed', reason: 'forbidden', message: '403 for [redacted] token [redacted] sig [redacted]&' });
});

test('maas guard hunt - a DNS method that throws synchronously rejects with a retryable error, redacted, naming no key', async (t) => {
  const driver = await driverOf({ findDns: () => { throw new Error(`no DNS with ${KEY}`); } });
  let thrown: unknown;
  try { await driver.findDns('api.lab'); } catch (err) { thrown = err; }
  t.true(thrown instanceof MetalfleetError);
  const err = thrown as MetalfleetError;
  t.true(err.retryable);
  t.false(leaks(err.message));
  t.is(err.message, `${PLUGIN}: findDns failed: no DNS with [redacted]`);
});

test('maas guard hunt - a DNS method that never answers rejects retryable after the call timeout', async (t) => {
  t.timeout(5_000);
  const driver = await driverOf({ createDns: never }, { callTimeoutMs: 20 });
  const err = await t.throwsAsync(driver.createDns('api.lab', 10, ['10.0.0.1']), { instanceOf: MetalfleetError });
  t.is(err?.message, `${PLUGIN}: createDns did not answer within 0.02 s`);
  t.true((err as MetalfleetError).retryable);
});

test('maas guard hunt - a DNS method answering the wrong shape rejects, not retryable, naming the plugin and the method', async (t) => {
  const driver = await driverOf({ findDns: async () => ({ id: 'one', fqdn: 'api.lab' }), updateDns: async () => null });
  const bad = await t.throwsAsync(driver.findDns('api.lab'), { instanceOf: MetalfleetError });
  t.false((bad as MetalfleetError).retryable);
  t.regex(bad?.message ?? '', /^provisioner plugin lab-maas \(lab-maas\.mjs\): findDns answered .*not a DnsRecord or null/);
  const bad2 = await t.throwsAsync(driver.updateDns(1, ['10.0.0.1']), { instanceOf: MetalfleetError });
  t.regex(bad2?.message ?? '', /updateDns answered null/);
  t.is(await (await driverOf({ findDns: async () => null })).findDns('x'), null);
  t.deepEqual(await (await driverOf({})).createDns('api.lab', 10, ['10.0.0.1']), record);
});

test('maas guard hunt - a driver error the actors read (dnsDomainNotFound) keeps its code and domain, its message redacted', async (t) => {
  const gone = Object.assign(new MetalfleetError('dnsDomainNotFound', `no domain lab for ${KEY}`, false), { domain: 'lab' });
  const driver = await driverOf({ findDns: async () => { throw gone; } });
  const err = await t.throwsAsync(driver.findDns('api.lab'), { instanceOf: MetalfleetError });
  t.is((err as MetalfleetError).code, 'dnsDomainNotFound');
  t.is((err as unknown as { domain: string }).domain, 'lab');
  t.false(leaks(err?.message ?? ''));
});

test('maas guard hunt - optional methods are guarded when present, absent when not; requests() that throws answers none', async (t) => {
  const driver = await driverOf({ releaseIp: () => { throw new Error('boom'); }, reserveIp: async () => 42, requests: () => { throw new Error('boom'); } });
  t.is(driver.ownerData, undefined);
  t.is(driver.machineInterfaces, undefined);
  const released = await t.throwsAsync(driver.releaseIp!('10.0.0.1'), { instanceOf: MetalfleetError });
  t.true((released as MetalfleetError).retryable);
  const reserved = await t.throwsAsync(driver.reserveIp!({ subnet: '10.0.0.0/24', hostname: 'vip' }), { instanceOf: MetalfleetError });
  t.false((reserved as MetalfleetError).retryable);
  t.deepEqual(driver.requests!(), []);
  t.is(driver.endpoint, 'http://maas.lab:5240/MAAS');
  t.is(driver.pool, 'maas:lab');
});

test('maas guard hunt - a built-in driver is handed over unwrapped', async (t) => {
  const registry = new ProvisionerRegistry();
  const made = baseDriver();
  registry.register({ name: 'maas', contractVersion: 1, resource: 'MaasMachine', supports: { operations: ['allocate'] }, create: () => made }, 'built-in');
  t.is(await registry.createMaasDriver('maas', ctx), made as unknown as MaasDriver);
});

const OPS = ['register', 'inspect', 'prepare', 'provision', 'deprovision', 'adopt', 'powerOn', 'powerOff', 'hardwareState', 'detach', 'delete'];
const host = { key: 'lab/h', namespace: 'lab', name: 'h', uid: 'u', provisionerId: '', spec: {}, credentials: null } as unknown as HostData;

async function provisionerWithCapacity(capacity: (h: HostData) => unknown) {
  const registry = new ProvisionerRegistry();
  const made = { name: 'lab', capacity, ...Object.fromEntries(OPS.map((m) => [m, async () => ({ kind: 'done' })])) };
  registry.register({ name: 'lab', contractVersion: 1, resource: 'BareMetalHost', supports: { operations: ['register'] }, create: () => made }, 'lab.mjs');
  return registry.createProvisioner('lab', { options: {}, log: silentLogger });
}

test('maas guard hunt - a BareMetalHost plugin capacity() that throws or answers nonsense gives a safe, non-exempt claim', async (t) => {
  let calls = 0;
  const flaky = await provisionerWithCapacity(() => { calls += 1; if (calls > 1) throw new Error('boom'); return { pool: 'lab:rack1', exempt: true }; });
  t.deepEqual(flaky.capacity(host), { pool: 'lab:rack1', exempt: true });
  // The pool last named, so the slots it holds stay in one pool; never exempt from the bound.
  t.notThrows(() => flaky.capacity(host));
  t.deepEqual(flaky.capacity(host), { pool: 'lab:rack1', exempt: false });
  const throwing = await provisionerWithCapacity(() => { throw new Error('boom'); });
  t.deepEqual(throwing.capacity(host), { pool: 'plugin:lab', exempt: false });
  for (const bad of [undefined, { pool: 3, exempt: false }, { pool: 'x' }, 'lab']) {
    const p = await provisionerWithCapacity(() => bad);
    t.deepEqual(p.capacity(host), { pool: 'plugin:lab', exempt: false }, JSON.stringify(bad));
  }
});
