import test from 'ava';
import type { BareMetalHostSpec } from '../../src/api/index.ts';
import type { FixtureOperation } from '../../src/adapters/fixture/index.ts';
import { createFixtureProvisioner, demoExpectation, FixtureOptionsError, meetsDemoExpectation } from '../../src/adapters/fixture/index.ts';
import type { HostData, Provisioner } from '../../src/ports/index.ts';
import type { CallArgs, OpResult } from '../../src/machines/bmh/index.ts';

const PASSWORD = 'p4ssw0rd-do-not-leak';
const USER_DATA = '#cloud-config\nroot-password: user-data-do-not-leak';

function hostData(name: string, credentials: HostData['credentials'] = { username: 'bmc-admin-user', password: PASSWORD }): HostData {
  const spec: BareMetalHostSpec = {
    online: true,
    bootMode: 'UEFI',
    automatedCleaningMode: 'metadata',
    bmc: { address: 'redfish://192.0.2.1/redfish/v1/Systems/1', credentialsName: `${name}-bmc` },
    image: { url: 'http://images/os.qcow2', checksum: 'abc' },
  };
  return { key: `metal3/${name}`, namespace: 'metal3', name, uid: `uid-${name}`, provisionerId: '', spec, credentials, userData: USER_DATA, networkData: USER_DATA, metaData: USER_DATA };
}

const ARGS: { [O in FixtureOperation]: Extract<CallArgs, { op: O }> } = {
  register: { op: 'register', restartOnFailure: false, credentialsChanged: false },
  inspect: { op: 'inspect', restartOnFailure: false, refresh: false },
  prepare: { op: 'prepare', restartOnFailure: false, raid: { target: null, actual: null } },
  provision: { op: 'provision', image: { url: 'http://images/os.qcow2', checksum: 'abc' }, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints: undefined },
  deprovision: { op: 'deprovision', restartOnFailure: false, automatedCleaning: true },
  adopt: { op: 'adopt', restartOnFailure: false },
  powerOn: { op: 'powerOn', force: false },
  powerOff: { op: 'powerOff', mode: 'hard', force: false },
  hardwareState: { op: 'hardwareState' },
  detach: { op: 'detach', force: false },
  delete: { op: 'delete' },
  service: { op: 'service', restartOnFailure: false, firmware: { settings: { ProcTurboMode: 'Disabled' }, updates: [] } },
  firmware: { op: 'firmware' },
};

function call(p: Provisioner, h: HostData, op: FixtureOperation): Promise<OpResult> {
  const fn = p[op] as (host: HostData, args: CallArgs) => Promise<OpResult>;
  return fn.call(p, h, ARGS[op]);
}

// mulberry32: a small seeded generator so rates give the same outcome on every run.
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

test('fixture - failureRate fails about that share of calls, the same way for the same seed', async (t) => {
  async function run(seed: number): Promise<string[]> {
    const p = createFixtureProvisioner({ failureRate: { register: 0.3 }, random: seeded(seed) });
    const out: string[] = [];
    for (let i = 0; i < 1000; i++) {
      const r = await call(p, hostData(`h${i}`), 'register');
      out.push(r.kind === 'failed' ? r.message : r.kind);
    }
    return out;
  }
  const first = await run(42);
  t.deepEqual(await run(42), first);
  const failures = first.filter((m) => m === 'injected register failure').length;
  t.true(failures > 240 && failures < 360, `${failures} failures of 1000`);
  t.true(first.every((m) => m === 'done' || m === 'injected register failure'));
});

test('fixture - a failure rate of one fails every operation it names', async (t) => {
  const p = createFixtureProvisioner({ failureRate: { inspect: 1 } });
  const h = hostData('h');
  t.like(await call(p, h, 'register'), { kind: 'done' });
  t.deepEqual(await call(p, h, 'inspect'), { kind: 'failed', message: 'injected inspect failure' });
  // A failed gated operation does not leave the node busy.
  t.is(p.busy(), 0);
  t.is(p.node(h.key)?.provisionState, 'manageable');
  const all = createFixtureProvisioner({ failureRate: 1 });
  t.deepEqual(await call(all, h, 'register'), { kind: 'failed', message: 'injected register failure' });
});

test('fixture - transientRate yields transient errors', async (t) => {
  const p = createFixtureProvisioner({ transientRate: 1 });
  const r = await call(p, hostData('h'), 'register');
  t.is(r.kind, 'transient');
  t.is(p.node('metal3/h'), undefined);
  const some = createFixtureProvisioner({ transientRate: { hardwareState: 0.5 }, random: seeded(7) });
  const h = hostData('h');
  await call(some, h, 'register');
  const kinds = new Set<string>();
  for (let i = 0; i < 50; i++) kinds.add((await call(some, h, 'hardwareState')).kind);
  t.deepEqual([...kinds].sort(), ['done', 'transient']);
});

test('fixture - failHosts fails the named operations of the named hosts only', async (t) => {
  const p = createFixtureProvisioner({ failHosts: { 'bad-0': ['provision', 'powerOn'], 'metal3/bad-1': ['register'] } });
  const bad = hostData('bad-0');
  const good = hostData('good');
  for (const h of [bad, good]) {
    await call(p, h, 'register');
    await call(p, h, 'inspect');
    await call(p, h, 'prepare');
  }
  t.deepEqual(await call(p, bad, 'provision'), { kind: 'failed', message: 'injected provision failure' });
  t.is(p.node(bad.key)?.provisionState, 'available');
  t.deepEqual(await call(p, bad, 'powerOn'), { kind: 'failed', message: 'injected powerOn failure' });
  t.like(await call(p, good, 'provision'), { kind: 'done' });
  t.like(await call(p, hostData('bad-1'), 'register'), { kind: 'failed', message: 'injected register failure' });
  t.is(p.busy(), 0);
});

test('fixture - invalid options are rejected with the field named', (t) => {
  const cases: [unknown, RegExp][] = [
    [{ inspectPasses: 0 }, /inspectPasses: must be at least 1/],
    [{ failureRate: 1.5 }, /failureRate/],
    [{ latencyMs: { inspect: -1 } }, /latencyMs/],
    [{ latencyMs: { inspekt: 5 } }, /latencyMs/],
    [{ failHosts: { h: ['fly'] } }, /failHosts\.h\[0\]/],
    [{ random: 3 }, /random: must be a function/],
    [{ pool: '' }, /pool: must not be empty/],
    [{ bogus: true }, /bogus/],
  ];
  for (const [options, message] of cases) {
    const error = t.throws(() => createFixtureProvisioner(options as never), { instanceOf: FixtureOptionsError });
    t.regex(error.message, message, JSON.stringify(options));
  }
});

test('fixture - demo host names fail or stick in their step', async (t) => {
  const p = createFixtureProvisioner({ pollMs: 10 });
  const reg = await call(p, hostData('demo-registration-error'), 'register');
  t.is(reg.kind, 'failed');
  t.deepEqual(await call(p, hostData('demo-registering'), 'register'), { kind: 'continuing', afterMs: 10 });
  t.is(p.node('metal3/demo-registering')?.provisionState, 'enroll');

  for (const [name, op] of [['demo-inspecting', 'inspect'], ['demo-preparing', 'prepare'], ['demo-provisioning', 'provision']] as const) {
    const h = hostData(name);
    await call(p, h, 'register');
    if (op !== 'inspect') await call(p, h, 'inspect');
    if (op === 'provision') await call(p, h, 'prepare');
    for (let i = 0; i < 5; i++) t.deepEqual(await call(p, h, op), { kind: 'continuing', afterMs: 10 }, name);
  }
  // Stuck inspection and deployment hold the backend busy.
  t.is(p.busy(), 2);

  const prep = hostData('demo-preparing-error');
  await call(p, prep, 'register');
  await call(p, prep, 'inspect');
  t.is((await call(p, prep, 'prepare')).kind, 'failed');

  const val = hostData('demo-validation-error');
  for (const op of ['register', 'inspect', 'prepare'] as const) await call(p, val, op);
  t.is((await call(p, val, 'provision')).kind, 'failed');
  t.like(await call(p, val, 'deprovision'), { kind: 'done' });
  t.like(await call(p, hostData('demo-anything-else'), 'register'), { kind: 'done' });

  const plain = createFixtureProvisioner({ demoBehaviours: false });
  t.like(await call(plain, hostData('demo-registration-error'), 'register'), { kind: 'done' });
});

test('fixture - demo expectations name the state and error each demo host settles in', (t) => {
  t.deepEqual(demoExpectation('demo-registration-error'), { state: 'registering', errorType: 'registration error' });
  t.deepEqual(demoExpectation('demo-inspecting'), { state: 'inspecting' });
  t.deepEqual(demoExpectation('demo-validation-error'), { state: 'any', errorType: 'provisioning error' });
  t.is(demoExpectation('worker-0'), null);
  const status = (state: string, errorType?: string) => ({ provisioning: { state, ID: 'x' }, errorType }) as never;
  t.true(meetsDemoExpectation('demo-inspecting', status('inspecting')));
  t.false(meetsDemoExpectation('demo-inspecting', status('preparing')));
  t.false(meetsDemoExpectation('demo-inspecting', status('inspecting', 'inspection error')));
  t.true(meetsDemoExpectation('demo-validation-error', status('available', 'provisioning error')));
  t.false(meetsDemoExpectation('demo-validation-error', status('provisioned')));
  t.true(meetsDemoExpectation('worker-0', undefined));
});

test('fixture - no result, message or node view carries credentials or user data', async (t) => {
  const seen: unknown[] = [];
  const providers = [
    createFixtureProvisioner(),
    createFixtureProvisioner({ failureRate: 1 }),
    createFixtureProvisioner({ transientRate: 1 }),
    createFixtureProvisioner({ inspectPasses: 2, provisionPasses: 2 }),
  ];
  const hosts = [
    hostData('worker-0'),
    hostData('demo-registration-error'),
    hostData('demo-validation-error'),
    hostData('demo-preparing-error'),
    hostData('no-password', { username: 'bmc-admin-user', password: '' }),
    hostData('no-creds', null),
  ];
  for (const p of providers) {
    for (const h of hosts) {
      for (const op of Object.keys(ARGS) as FixtureOperation[]) {
        seen.push(await call(p, h, op));
        seen.push(p.node(h.key));
      }
      p.forget(h.key);
      seen.push(await call(p, h, 'inspect'));
    }
    seen.push(p.calls(), p.totals());
  }
  const text = JSON.stringify(seen, (_k, v: unknown) => (v instanceof Map ? [...v.entries()] : v));
  for (const secret of [PASSWORD, 'bmc-admin-user', 'user-data-do-not-leak']) t.false(text.includes(secret), secret);
});
