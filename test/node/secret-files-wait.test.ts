import test from 'ava';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { loadSecretFiles } from '../../src/adapters/store/nats-secrets.ts';
import { openNatsStoreOn } from '../../src/adapters/store/nats-store.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import type { HostData, Logger, Provisioner } from '../../src/ports/index.ts';
import { startLocalNode } from '../support/local-node.ts';
import { waitUntil } from '../support/wait.ts';

// Issue 19.3, on a node as `metalfleet node --secrets DIR` runs one: the Secrets come from files,
// a host's user data Secret is not there yet, and it arrives as a file while the node runs.

const KEY = 'lab/worker-0';
const USER_DATA = '#cloud-config\nhostname: worker-0\npassword: user-data-secret-value\n';

function secretYaml(name: string, data: Record<string, string>): string {
  return ['apiVersion: v1', 'kind: Secret', `metadata: {name: ${name}, namespace: lab}`, 'stringData:', ...Object.entries(data).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`)].join('\n');
}

function host(): unknown {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name: 'worker-0', namespace: 'lab' },
    spec: {
      online: true,
      bmc: { address: 'redfish://10.0.0.7/redfish/v1/Systems/1', credentialsName: 'worker-0-bmc' },
      bootMACAddress: '52:54:00:00:00:01',
      image: { url: 'http://images/os.qcow2', checksum: 'abc', checksumType: 'sha256' },
      userData: { name: 'worker-0-user-data' },
    },
  };
}

test('secrets from files - a host whose userData Secret file is missing waits without any deploy or deprovision, and provisions once the file is written', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-secret-wait-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'bmc.yaml'), secretYaml('worker-0-bmc', { username: 'admin', password: 'bmc-secret-value' }));
  const secrets = await loadSecretFiles([dir], { debounceMs: 20 });

  const substrate = memorySubstrate();
  const store = await openNatsStoreOn(substrate.transport, { secrets });
  const fixture = createFixtureProvisioner({ demoBehaviours: false, latencyMs: 0 });
  const userData: Array<string | undefined> = [];
  // The fixture, telling what user data each deploy was given.
  const provisioner: Provisioner = new Proxy(fixture, {
    get(target, prop, receiver) {
      if (prop === 'provision') return (data: HostData, args: Parameters<Provisioner['provision']>[1]) => (userData.push(data.userData), target.provision(data, args));
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const node = await startLocalNode({
    name: 'secret-files-node',
    shardCount: 4,
    // A retry an hour away: only the Secret file appearing can wake the host within the test.
    machine: { ...DEFAULT_MACHINE_CONFIG, missingCredentialsRetryMs: 3_600_000, secretRecheckMs: 3_600_000 },
    capacity: { limits: {}, defaultLimit: 2, ttlMs: 30_000 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 5, maxMs: 20 } },
    askTimeoutMs: 2_000,
  }, { store: store.resources, secrets }, { provisioner }, {}, substrate);
  t.teardown(() => node.stop({ graceful: false }));

  t.true((await store.apply([host()])).ok);
  const status = async () => (await store.get(KEY))?.status;
  await waitUntil(async () => (await status())?.operationalStatus === 'delayed', 10_000, 'the host waiting for its user data');
  const waiting = await status();
  t.is(waiting?.provisioning.state, 'provisioning');
  t.is(waiting?.errorMessage, 'waiting for Secret lab/worker-0-user-data (spec.userData), which does not exist; provisioning continues as soon as it does');
  t.is(waiting?.errorType ?? '', '');
  t.is(waiting?.provisioningFailCount, 0);
  const calls = fixture.calls(KEY);
  t.is(calls.provision, 0, 'no deploy');
  t.is(calls.deprovision, 0, 'no deprovision');
  t.is((await node.snapshot(KEY))?.slot.phase, 'none', 'no slot held while waiting');
  t.is((await node.capacity()).totals.inUse, 0);

  // The wait is steady: still no backend call a moment later.
  await waitUntil(async () => (await node.snapshot(KEY))?.retryAt !== null, 2_000, 'the wait armed');
  t.is(fixture.calls(KEY).deprovision, 0);

  await writeFile(join(dir, 'user-data.yaml'), secretYaml('worker-0-user-data', { userData: USER_DATA }));
  await waitUntil(async () => (await status())?.provisioning.state === 'provisioned', 10_000, 'provisioned after the Secret file was written');
  const done = await status();
  t.is(done?.operationalStatus, 'OK');
  t.is(done?.errorMessage, '');
  t.is(fixture.calls(KEY).provision, 1);
  t.is(fixture.calls(KEY).deprovision, 0);
  t.deepEqual(userData, [USER_DATA], 'the deploy got the user data from the new file');
  t.false(JSON.stringify(done).includes('user-data-secret-value'), 'no Secret value in status');
});

test('secrets from files - missing BMC credentials are a registration error until their file is written, then the host registers at once', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-secret-wait-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const secrets = await loadSecretFiles([dir], { debounceMs: 20 });
  const substrate = memorySubstrate();
  const store = await openNatsStoreOn(substrate.transport, { secrets });
  const fixture = createFixtureProvisioner({ demoBehaviours: false, latencyMs: 0 });
  const node = await startLocalNode({
    name: 'secret-files-creds',
    shardCount: 4,
    // BMO looks again every 10 s; an hour here, so only the file's appearance can wake the host.
    machine: { ...DEFAULT_MACHINE_CONFIG, missingCredentialsRetryMs: 3_600_000 },
    capacity: { limits: {}, defaultLimit: 2, ttlMs: 30_000 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 5, maxMs: 20 } },
    askTimeoutMs: 2_000,
  }, { store: store.resources, secrets }, { provisioner: fixture }, {}, substrate);
  t.teardown(() => node.stop({ graceful: false }));
  const noUserData = host() as { spec: Record<string, unknown> };
  delete noUserData.spec['userData'];
  t.true((await store.apply([noUserData])).ok);
  const status = async () => (await store.get(KEY))?.status;
  await waitUntil(async () => (await status())?.errorType === 'registration error', 10_000, 'a registration error');
  t.is((await status())?.errorMessage, 'BMC credentials Secret lab/worker-0-bmc not found');
  t.is(fixture.calls(KEY).register, 0);

  await writeFile(join(dir, 'bmc.yaml'), secretYaml('worker-0-bmc', { username: 'admin', password: 'bmc-secret-value' }));
  await waitUntil(async () => (await status())?.provisioning.state === 'provisioned', 10_000, 'provisioned after the credentials file was written');
  t.is((await status())?.errorType ?? '', '');
  t.false(JSON.stringify(await status()).includes('bmc-secret-value'));
});

test('secrets from files - a Secrets file that stops parsing is logged by the node with file, document and field, never a value, and its Secrets stay', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-secret-wait-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'bmc.yaml'), secretYaml('worker-0-bmc', { username: 'admin', password: 'bmc-secret-value' }));
  const secrets = await loadSecretFiles([dir], { debounceMs: 20 });
  const lines: string[] = [];
  const capture = (level: string) => (obj: object, msg?: string): void => void lines.push(JSON.stringify({ level, ...obj, msg }));
  const log: Logger = { debug: capture('debug'), info: capture('info'), warn: capture('warn'), error: capture('error'), child: () => log };
  const substrate = memorySubstrate();
  const store = await openNatsStoreOn(substrate.transport, { secrets });
  const fixture = createFixtureProvisioner({ demoBehaviours: false, latencyMs: 0 });
  const node = await startLocalNode({
    name: 'secret-files-log',
    shardCount: 4,
    machine: DEFAULT_MACHINE_CONFIG,
    capacity: { limits: {}, defaultLimit: 2, ttlMs: 30_000 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 5, maxMs: 20 } },
    askTimeoutMs: 2_000,
  }, { store: store.resources, secrets }, { provisioner: fixture }, { log }, substrate);
  t.teardown(() => node.stop({ graceful: false }));

  await writeFile(join(dir, 'bmc.yaml'), ['apiVersion: v1', 'kind: Secret', 'metadata: {name: worker-0-bmc, namespace: lab}', 'data: {password: "not base64 !! leaked-bmc-password"}'].join('\n'));
  await waitUntil(() => lines.some((l) => l.includes('bmc.yaml document 1')), 10_000, 'the broken file logged');
  const logged = lines.find((l) => l.includes('bmc.yaml document 1'))!;
  t.regex(logged, /"level":"error"/);
  t.regex(logged, /Secret lab\/worker-0-bmc data\.password/);
  t.false(lines.join('\n').includes('leaked-bmc-password'));
  t.false(lines.join('\n').includes('bmc-secret-value'));
  t.truthy(await secrets.get('lab', 'worker-0-bmc'), 'the last good Secret stays');
});
