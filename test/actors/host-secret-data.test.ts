// The Secrets a host call reads, read just before it (issue 19.3): one that is missing, or that
// holds nothing usable, is a wait for that Secret, and the backend is never called.
import test from 'ava';
import { openLocalStore } from '../../src/adapters/store/index.ts';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { callBackend, callProvisioner } from '../../src/actors/host/host-call.ts';
import { BareMetalHost } from '../../src/api/index.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import type { CallArgs } from '../../src/machines/bmh/index.ts';
import type { HostData, Provisioner } from '../../src/ports/index.ts';
import { bmh, secret } from '../support/node.ts';

async function setUp(objects: unknown[]) {
  const store = await openLocalStore(createMemoryBus().connect('test'));
  const applied = await store.applyObjects(objects);
  if (!applied.ok) throw new Error(JSON.stringify(applied));
  const fixture = createFixtureProvisioner({ latencyMs: 0, demoBehaviours: false });
  return { store, fixture };
}

function withUserData(name: string, namespace?: string): BareMetalHost {
  const host = BareMetalHost.parse(bmh('h1'));
  return { ...host, spec: { ...host.spec, userData: { name, ...(namespace ? { namespace } : {}) } } };
}

const provision = (host: BareMetalHost): CallArgs => ({ op: 'provision', image: host.spec.image, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints: undefined });

test('host call - a missing userData Secret is a wait for it, and nothing reaches the backend', async (t) => {
  const { store, fixture } = await setUp([secret()]);
  const host = withUserData('h1-user-data', 'other');
  const result = await callProvisioner(host, provision(host), store, fixture, 10_000, undefined);
  t.deepEqual(result, {
    kind: 'waitForSecret', secret: 'other/h1-user-data', field: 'spec.userData',
    message: 'waiting for Secret other/h1-user-data (spec.userData), which does not exist; provisioning continues as soon as it does',
  });
  t.is(fixture.totals().provision, 0);
});

test('host call - a userData Secret with no usable key is a wait too, naming the keys looked for and no value', async (t) => {
  const { store, fixture } = await setUp([secret(), secret('ud', 'lab', { one: 'first-secret-value', two: 'second-secret-value' })]);
  const host = withUserData('ud');
  const result = await callProvisioner(host, provision(host), store, fixture, 10_000, undefined);
  t.like(result, { kind: 'waitForSecret', secret: 'lab/ud', field: 'spec.userData' });
  t.regex((result as { message: string }).message, /has no key "userData" or "value"/);
  t.false(JSON.stringify(result).includes('secret-value'));
  t.is(fixture.totals().provision, 0);
});

test('host call - the userData Secret present: the deploy gets its content', async (t) => {
  const { store, fixture } = await setUp([secret(), secret('ud', 'lab', { userData: '#cloud-config\n' })]);
  const host = withUserData('ud');
  t.is((await callProvisioner(BareMetalHost.parse(bmh('h1')), { op: 'register', restartOnFailure: false, credentialsChanged: false }, store, fixture, 10_000, undefined)).kind, 'done');
  const result = await callProvisioner(host, provision(host), store, fixture, 10_000, undefined);
  t.not(result.kind, 'waitForSecret');
  t.is(fixture.totals().provision, 1);
});

test('host call - missing BMC credentials are a wait for their Secret, looked at again after missingRetryMs', async (t) => {
  const { store, fixture } = await setUp([]);
  const host = BareMetalHost.parse(bmh('h1', { credentialsName: 'late' }));
  const result = await callProvisioner(host, { op: 'register', restartOnFailure: false, credentialsChanged: false }, store, fixture, 10_000, undefined);
  t.deepEqual(result, { kind: 'waitForSecret', secret: 'lab/late', field: 'spec.bmc.credentialsName', message: 'BMC credentials Secret lab/late not found', retryAfterMs: 10_000 });
  t.is(fixture.totals().register, 0);
});

test('host call - a register after spec.bmc.credentialsName moved to another Secret sends that Secret\'s credentials as changed, and says which it used (issue 31.4)', async (t) => {
  const { store, fixture } = await setUp([secret(), secret('bmc-rotated', 'lab', { username: 'root', password: 'rotated-pw' })]);
  const parsed = BareMetalHost.parse(bmh('h1', { credentialsName: 'bmc-rotated' }));
  // Status still records the Secret the host registered with before the spec moved.
  const host: BareMetalHost = { ...parsed, status: { operationalStatus: 'OK', errorMessage: '', errorCount: 0, poweredOn: true, provisioningFailCount: 0, provisioning: { state: 'provisioned', ID: 'node-1' }, goodCredentials: { credentials: { name: 'bmc', namespace: 'lab' }, credentialsVersion: '1' }, triedCredentials: { credentials: { name: 'bmc', namespace: 'lab' }, credentialsVersion: '1' } } };
  const seen: Array<{ data: HostData; args: CallArgs }> = [];
  const spy = new Proxy(fixture, {
    get(target, prop, receiver) {
      if (prop !== 'register') return Reflect.get(target, prop, receiver) as unknown;
      return (data: HostData, args: Extract<CallArgs, { op: 'register' }>) => {
        seen.push({ data, args });
        return target.register(data, args);
      };
    },
  }) as Provisioner;
  const outcome = await callBackend(host, { op: 'register', restartOnFailure: false, credentialsChanged: false }, store, spy, 10_000, undefined);
  t.is(outcome.result.kind, 'done');
  t.like(outcome.credentials, { name: 'bmc-rotated', namespace: 'lab' });
  t.is(seen.length, 1);
  t.true(seen[0]!.args.op === 'register' && seen[0]!.args.credentialsChanged);
  t.deepEqual(seen[0]!.data.credentials, { username: 'root', password: 'rotated-pw' });
});
