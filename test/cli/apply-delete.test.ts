import test, { type ExecutionContext } from 'ava';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { MAAS_VALIDATORS } from '../../src/adapters/store/object-apply.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { z } from 'zod';
import { ResourceNotFound, NATS_HOSTS_BUCKET, NATS_STATUS_BUCKET, openNatsStore, openNatsStoreOn, type NatsStore } from '../../src/adapters/store/nats-store.ts';
import { openKvStoreOn } from '../../src/adapters/store/kv-store.ts';
import { storedKindOf } from '../../src/adapters/store/kv-layouts.ts';
import { call, connectNats, createMemoryTransport, subjects } from '../../src/bus/index.ts';
import { openNatsKv } from '../../src/bus/nats-kv.ts';
import { deleteThroughNode, startStoreServer } from '../../src/cluster/commands/index.ts';
import { openLocalStore } from '../../src/adapters/store/local-store.ts';
import { silentLogger, type KvBucket } from '../../src/ports/index.ts';
import { openAuditLog, openNonceLedger, parseAuthorizedKeys, readAudit, signedGuard, trustedGuard, writeNewSigningKey } from '../../src/security/index.ts';
import { natsServerInstalled, startNatsServer, type NatsServer } from '../support/nats-server.ts';
import { waitUntil } from '../support/wait.ts';
import { lines, metalfleet, type Run } from './run.ts';

const PASSWORD = 'cli-apply-never-in-nats';

function hostYaml(name: string, online = true, extra = ''): string {
  return [
    'apiVersion: metal3.io/v1alpha1',
    'kind: BareMetalHost',
    'metadata:',
    `  name: ${name}`,
    '  namespace: metal3',
    'spec:',
    `  online: ${online}`,
    '  bmc:',
    '    address: redfish://192.0.2.10/redfish/v1/Systems/1',
    `    credentialsName: ${name}-bmc`,
    extra,
  ].filter(Boolean).join('\n');
}

const NAMESPACE = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: metal3';
const SECRET = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: h1-bmc\n  namespace: metal3\nstringData:\n  username: admin\n  password: ${PASSWORD}`;

interface Env {
  server: NatsServer;
  dir: string;
  /** metalfleet with the operator's --signing-key: apply and delete go through the node's store server. */
  mf(...args: string[]): Promise<Run>;
  /** The seed files of an operator and a viewer the node's allow-list names. */
  seeds: { operator: string; viewer: string };
  file(name: string, ...docs: string[]): Promise<string>;
  /** A store of the test's own, to see and arrange what the CLI works on. */
  store(): Promise<NatsStore>;
  buckets(): Promise<{ specs: KvBucket; status: KvBucket }>;
}

async function setup(t: ExecutionContext): Promise<Env> {
  const server = await startNatsServer();
  t.teardown(() => server.dispose());
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-apply-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  // What a node runs for apply and delete (src/node/start-node.ts), here without the controllers,
  // so the hosts stay as the CLI leaves them.
  const seeds = { operator: join(dir, 'operator.seed'), viewer: join(dir, 'viewer.seed') };
  const allowList = `operator ${await writeNewSigningKey(seeds.operator)} olivia\nviewer ${await writeNewSigningKey(seeds.viewer)} vera\n`;
  const node = await connectNats({ servers: server.url, name: 'node' });
  t.teardown(() => node.close());
  const nodeStore = await openNatsStoreOn(node);
  t.teardown(() => nodeStore.close());
  const nodeObjects = openKvStoreOn(node, { hosts: false, validators: MAAS_VALIDATORS });
  t.teardown(async () => (await nodeObjects).close());
  const storeServer = startStoreServer({
    transport: node, store: nodeStore, objects: () => nodeObjects, node: 'node', log: silentLogger,
    guard: signedGuard({ keys: parseAuthorizedKeys(allowList, 'keys'), nonces: await openNonceLedger(node, 120_000) }),
    audit: await openAuditLog(node, subjects(), silentLogger),
    isObject: (object) => storedKindOf(object) !== null,
    isNotFound: (error) => error instanceof ResourceNotFound,
  });
  t.teardown(() => storeServer.close());
  const buckets = async () => {
    const nc = await connect({ servers: server.url });
    t.teardown(() => nc.close());
    return { specs: await openNatsKv(nc, NATS_HOSTS_BUCKET), status: await openNatsKv(nc, NATS_STATUS_BUCKET) };
  };
  return {
    server,
    dir,
    seeds,
    mf: (...args) => metalfleet(...args, '--signing-key', seeds.operator),
    async file(name, ...docs) {
      const path = join(dir, name);
      await writeFile(path, docs.join('\n---\n'));
      return path;
    },
    buckets,
    async store() {
      const store = await openNatsStore(await buckets());
      t.teardown(() => store.close());
      return store;
    },
  };
}

const it = natsServerInstalled() ? test : test.skip;

it('cli apply - creates, then reports unchanged and configured hosts; other kinds are noted', async (t) => {
  const env = await setup(t);
  const file = await env.file('hosts.yaml', NAMESPACE, hostYaml('h1'), hostYaml('h2'));
  const first = await env.mf('apply', '-f', file, '--nats', env.server.url);
  t.is(first.code, 0, first.stderr);
  t.deepEqual(lines(first.stdout), ['baremetalhost metal3/h1 created', 'baremetalhost metal3/h2 created']);
  t.deepEqual(lines(first.stderr), ['note: Namespace default/metal3: skipped (kind not managed by metalfleet)']);

  const store = await env.store();
  t.deepEqual((await store.list()).map((h) => h.metadata.name).sort(), ['h1', 'h2']);
  t.is((await store.get('metal3/h1'))!.metadata.generation, 1);

  const changed = await env.file('changed.yaml', hostYaml('h1', false));
  const second = await env.mf('apply', '-f', changed, '-f', file, '--nats', env.server.url);
  t.is(second.code, 0, second.stderr);
  // h1 is given twice: the later document (unchanged) wins, with a warning.
  t.deepEqual(lines(second.stdout), ['baremetalhost metal3/h1 unchanged', 'baremetalhost metal3/h2 unchanged']);
  t.regex(second.stderr, /warning: BareMetalHost metal3\/h1 is given twice/);

  const third = await env.mf('apply', '-f', changed, '--nats', env.server.url);
  t.is(third.code, 0, third.stderr);
  t.deepEqual(lines(third.stdout), ['baremetalhost metal3/h1 configured']);
  await waitUntil(async () => (await store.get('metal3/h1'))?.metadata.generation === 2, 5_000, 'the store sees generation 2');
});

it('cli apply - invalid manifests: the validate errors, exit 1, nothing applied', async (t) => {
  const env = await setup(t);
  const file = await env.file('bad.yaml', hostYaml('good'), hostYaml('bad', true, '  bootMode: BIOS-ish'));
  const r = await env.mf('apply', '-f', file, '--nats', env.server.url);
  t.is(r.code, 1);
  t.is(r.stdout, '');
  const validate = await metalfleet('validate', file);
  // The same error lines as `metalfleet validate` prints.
  for (const line of lines(validate.stdout)) t.true(lines(r.stderr).includes(line), `missing: ${line}`);
  t.regex(r.stderr, /bad\.yaml:22:3: BareMetalHost metal3\/bad: spec\.bootMode: /);
  t.regex(lines(r.stderr).at(-1)!, /^nothing was applied: 1 invalid object, 0 unreadable$/);
  const { specs } = await env.buckets();
  t.deepEqual(await specs.keys(), []);

  const missing = await env.mf('apply', '-f', join(env.dir, 'nope.yaml'), '--nats', env.server.url);
  t.is(missing.code, 1);
  t.regex(missing.stderr, /error: .*nope\.yaml: cannot read: no such file/);
});

it('cli apply - Secrets are refused before anything is written, and never echoed', async (t) => {
  const env = await setup(t);
  const file = await env.file('with-secret.yaml', SECRET, hostYaml('h1'));
  const r = await env.mf('apply', '-f', file, '--nats', env.server.url);
  t.is(r.code, 1);
  t.is(r.stdout, '');
  t.regex(r.stderr, /error: .*with-secret\.yaml:1:1: Secret metal3\/h1-bmc: Secrets are never stored in NATS.*--secrets/);
  t.false(r.stderr.includes(PASSWORD));
  const { specs } = await env.buckets();
  t.deepEqual(await specs.keys(), []);
});

it('cli delete - by name: deleted, terminating with its finalizers, not found; exit 1', async (t) => {
  const env = await setup(t);
  const store = await env.store();
  await store.apply([hostObject('h1'), hostObject('h2')]);
  await store.addFinalizer('metal3/h1', 'baremetalhost.metal3.io');

  const r = await env.mf('delete', 'host', 'metal3/h1', 'metal3/h2', 'metal3/nope', '--nats', env.server.url);
  t.is(r.code, 1);
  t.deepEqual(lines(r.stdout), ['baremetalhost metal3/h1 terminating (finalizers: baremetalhost.metal3.io)', 'baremetalhost metal3/h2 deleted']);
  t.deepEqual(lines(r.stderr), ['error: baremetalhost metal3/nope not found']);

  await waitUntil(async () => (await store.get('metal3/h2')) === undefined && Boolean((await store.get('metal3/h1'))?.metadata.deletionTimestamp), 5_000, 'the store sees the deletes');
  await store.removeFinalizer('metal3/h1', 'baremetalhost.metal3.io');
  t.is(await store.get('metal3/h1'), undefined);

  const bad = await env.mf('delete', 'host', 'worker-0', '--nats', env.server.url);
  t.is(bad.code, 1);
  t.regex(bad.stderr, /give it as NAMESPACE\/NAME/);
  const kind = await env.mf('delete', 'pod', 'metal3/x', '--nats', env.server.url);
  t.is(kind.code, 2);
  t.regex(kind.stderr, /unknown type "pod"/);
});

it('cli delete - by file: the hosts it names; Secrets and other kinds are noted', async (t) => {
  const env = await setup(t);
  const file = await env.file('hosts.yaml', NAMESPACE, SECRET, hostYaml('h1'), hostYaml('h2'));
  const store = await env.store();
  await store.apply([hostObject('h1'), hostObject('h2'), hostObject('h3')]);

  const r = await env.mf('delete', '-f', file, '--nats', env.server.url);
  t.is(r.code, 0, r.stderr);
  t.deepEqual(lines(r.stdout), ['baremetalhost metal3/h1 deleted', 'baremetalhost metal3/h2 deleted']);
  t.regex(r.stderr, /note: Secret\/h1-bmc: skipped \(Secrets are not in NATS/);
  t.false(r.stderr.includes(PASSWORD));
  const { specs } = await env.buckets();
  t.deepEqual(await specs.keys(), ['metal3.h3']);
});

it('cli apply - without a NATS server the command says how to give one', async (t) => {
  if (process.env.NATS_URL) return t.pass('NATS_URL is set in this environment');
  const env = await setup(t);
  const file = await env.file('hosts.yaml', hostYaml('h1'));
  const r = await metalfleet('apply', '-f', file);
  t.is(r.code, 1);
  t.regex(r.stderr, /no NATS server given: pass --nats/);
});

function hostObject(name: string): Record<string, unknown> {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name, namespace: 'metal3' },
    spec: { online: true, bmc: { address: 'redfish://192.0.2.10/redfish/v1/Systems/1', credentialsName: `${name}-bmc` } },
  };
}

it('cli apply and delete - only an operator\'s signed request writes: unsigned and viewer are refused, nothing changes, all audited', async (t) => {
  const env = await setup(t);
  const file = await env.file('hosts.yaml', hostYaml('h1'));
  const unsigned = await metalfleet('apply', '-f', file, '--nats', env.server.url);
  t.is(unsigned.code, 1);
  t.is(unsigned.stdout, '');
  t.regex(unsigned.stderr, /error: unauthorized: unsigned request refused.*\(no --signing-key given, nor METALFLEET_SIGNING_KEY_FILE\)\nnothing was applied/);
  const viewer = await metalfleet('apply', '-f', file, '--nats', env.server.url, '--signing-key', env.seeds.viewer);
  t.is(viewer.code, 1);
  t.regex(viewer.stderr, /error: forbidden: key vera has role viewer/);
  const { specs } = await env.buckets();
  t.deepEqual(await specs.keys(), [], 'nothing was written');

  const applied = await env.mf('apply', '-f', file, '--nats', env.server.url);
  t.is(applied.code, 0, applied.stderr);
  const refusedDelete = await metalfleet('delete', 'host', 'metal3/h1', '--nats', env.server.url, '--signing-key', env.seeds.viewer);
  t.is(refusedDelete.code, 1);
  t.regex(refusedDelete.stderr, /error: baremetalhost metal3\/h1: forbidden: key vera has role viewer/);
  t.deepEqual(await specs.keys(), ['metal3.h1']);
  const deleted = await env.mf('delete', 'host', 'metal3/h1', '--nats', env.server.url);
  t.is(deleted.code, 0, deleted.stderr);

  const client = await connectNats({ servers: env.server.url, name: 'audit-reader' });
  t.teardown(() => client.close());
  const audit = (await readAudit(client, subjects(), { host: 'metal3/h1' })).map((r) => [r.action, r.command, r.outcome, r.code, r.caller.kind === 'signed' ? r.caller.name : r.caller.kind]);
  t.deepEqual(audit, [
    ['apply', 'BareMetalHost', 'refused', 'unauthorized', 'unsigned'],
    ['apply', 'BareMetalHost', 'refused', 'forbidden', 'vera'],
    ['apply', 'BareMetalHost', 'applied', null, 'olivia'],
    ['delete', 'delete', 'refused', 'forbidden', 'vera'],
    ['delete', 'delete', 'applied', null, 'olivia'],
  ]);
});

it('cli apply - an object too large for one NATS message is a permanent error before anything is sent', async (t) => {
  // A server that takes 64 KiB messages, and no node: the size is checked before any request.
  const small = await startNatsServer({ config: 'max_payload: 65536' });
  t.teardown(() => small.dispose());
  const env = await setup(t);
  const big = `    metalfleet.io/notes: "${'x'.repeat(100_000)}"`;
  const file = await env.file('big.yaml', hostYaml('small'), hostYaml('big').replace('metadata:\n', `metadata:\n  annotations:\n${big}\n`));
  const r = await env.mf('apply', '-f', file, '--nats', small.url);
  t.is(r.code, 1, r.stderr);
  t.is(r.stdout, '');
  t.regex(r.stderr, /error: .*big\.yaml:12:1: BareMetalHost metal3\/big: is 10\d{4} bytes as a request, over the 64512 bytes one NATS message may carry here \(server max_payload 65536\)/);
  t.regex(lines(r.stderr).at(-1)!, /^nothing was applied$/);
});

it('cli delete - with no node running, says so', async (t) => {
  const lonely = await startNatsServer();
  t.teardown(() => lonely.dispose());
  const env = await setup(t);
  const r = await env.mf('delete', 'host', 'metal3/h1', '--nats', lonely.url);
  t.is(r.code, 1);
  t.regex(r.stderr, /error: baremetalhost metal3\/h1: no node answered on mf\.store\.delete: is a metalfleet node \(NATS store\) running\?/);
});

it('cli apply - MaasClusters, MaasMachines and the Cluster API objects go through the node to the object store; the seed is never shown', async (t) => {
  const env = await setup(t);
  const { readFile } = await import('node:fs/promises');
  // The CAPMAAS example without its Secret: Cluster, MaasCluster, MaasMachineTemplate, MaasMachine.
  const docs = (await readFile('test/fixtures/maas/cluster.yaml', 'utf8')).split(/^---$/m).slice(0, 4);
  const file = await env.file('maas.yaml', ...docs.map((d) => d.trim()));
  const r = await env.mf('apply', '-f', file, '--nats', env.server.url);
  t.is(r.code, 0, r.stderr);
  t.deepEqual(lines(r.stdout), ['cluster lab/c1 applied', 'maascluster lab/c1 applied', 'maasmachine lab/c1-control-plane-x7k2p applied']);
  // Templates are read from Kubernetes only, as before.
  t.deepEqual(lines(r.stderr), ['note: MaasMachineTemplate lab/c1-control-plane: skipped (kind not managed by metalfleet)']);
  const client = await connectNats({ servers: env.server.url, name: 'check' });
  t.teardown(() => client.close());
  const objects = await openKvStoreOn(client, { hosts: false });
  t.teardown(() => objects.close());
  await waitUntil(async () => (await objects.get('MaasMachine', 'lab/c1-control-plane-x7k2p')) !== undefined, 5_000, 'the MaasMachine is in the object store');
  const audit = await readAudit(client, subjects(), { host: 'lab/c1-control-plane-x7k2p' });
  t.like(audit.at(-1), { action: 'apply', command: 'MaasMachine', outcome: 'applied', caller: { kind: 'signed', name: 'olivia', role: 'operator' } });
  const seed = (await readFile(env.seeds.operator, 'utf8')).trim();
  t.false(r.stdout.includes(seed) || r.stderr.includes(seed));
  t.false(JSON.stringify(await readAudit(client, subjects())).includes(seed));
});

it('cli apply - a host the store\'s update rules refuse stops the apply before anything is written; audited with the reason', async (t) => {
  const env = await setup(t);
  const first = await env.mf('apply', '-f', await env.file('h1.yaml', hostYaml('h1', true, '  bootMACAddress: 52:54:00:00:00:01')), '--nats', env.server.url);
  t.is(first.code, 0, first.stderr);
  // One request per object: every one is checked against the stored version before any is written.
  const file = await env.file('both.yaml', hostYaml('h2'), hostYaml('h1', true, '  bootMACAddress: 52:54:00:00:00:02'));
  const r = await env.mf('apply', '-f', file, '--nats', env.server.url);
  t.is(r.code, 1);
  t.is(r.stdout, '');
  t.regex(r.stderr, /error: .*both\.yaml:22:3: BareMetalHost metal3\/h1: spec\.bootMACAddress: bootMACAddress can not be changed once it is set/);
  t.regex(lines(r.stderr).at(-1)!, /^nothing was applied$/);
  const store = await env.store();
  t.is((await store.get('metal3/h1'))?.spec.bootMACAddress, '52:54:00:00:00:01');
  t.is(await store.get('metal3/h2'), undefined);
  const client = await connectNats({ servers: env.server.url, name: 'audit-reader' });
  t.teardown(() => client.close());
  const last = (await readAudit(client, subjects(), { host: 'metal3/h1' })).at(-1);
  t.like(last, { action: 'apply', outcome: 'refused', code: 'invalid', caller: { name: 'olivia' } });
  t.regex(last?.reason ?? '', /spec\.bootMACAddress: bootMACAddress can not be changed/);
});

// A List (as `kubectl get bmh -o yaml` prints) goes to the node item by item; the node's issues
// and apply's warnings name the item (document and place in the List) and its line.
function listYaml(...hosts: string[]): string {
  const items = hosts.map((h) => h.trimEnd().split('\n').map((l, i) => `${i === 0 ? '- ' : '  '}${l}`).join('\n'));
  return ['apiVersion: metal3.io/v1alpha1', 'kind: BareMetalHostList', 'items:', ...items].join('\n');
}

it('cli apply - a List\'s items go to the node one by one; its refusals and warnings name the item', async (t) => {
  const env = await setup(t);
  const file = await env.file('list.yaml', NAMESPACE, listYaml(hostYaml('h1', true, '  bootMACAddress: 52:54:00:00:00:01'), hostYaml('h2'), hostYaml('h1', true, '  bootMACAddress: 52:54:00:00:00:01')));
  const first = await env.mf('apply', '-f', file, '--nats', env.server.url);
  t.is(first.code, 0, first.stderr);
  t.deepEqual(lines(first.stdout), ['baremetalhost metal3/h2 created', 'baremetalhost metal3/h1 created']);
  t.true(lines(first.stderr).includes(`warning: BareMetalHost metal3/h1 is given twice (${file} document 2 item 1 and ${file} document 2 item 3); the later one wins`), first.stderr);

  const changed = await env.file('changed.yaml', listYaml(hostYaml('h2'), hostYaml('h1', true, '  bootMACAddress: 52:54:00:00:00:02')));
  const r = await env.mf('apply', '-f', changed, '--nats', env.server.url);
  t.is(r.code, 1);
  t.regex(r.stderr, /^error: .*changed\.yaml:24:5: BareMetalHost metal3\/h1: spec\.bootMACAddress: bootMACAddress can not be changed/m);
  t.regex(lines(r.stderr).at(-1)!, /^nothing was applied$/);
  t.is((await (await env.store()).get('metal3/h1'))?.spec.bootMACAddress, '52:54:00:00:00:01');
});

// The CAPMAAS example without its Secret: Cluster, MaasCluster, MaasMachineTemplate, MaasMachine.
async function maasDocs(): Promise<string[]> {
  const { readFile } = await import('node:fs/promises');
  return (await readFile('test/fixtures/maas/cluster.yaml', 'utf8')).split(/^---$/m).slice(0, 4).map((d) => d.trim());
}

it('cli delete - by file: the MaasCluster, MaasMachine and Cluster apply took are removed from the object store; the template is noted', async (t) => {
  const env = await setup(t);
  const file = await env.file('maas.yaml', ...(await maasDocs()), hostYaml('h1'));
  const applied = await env.mf('apply', '-f', file, '--nats', env.server.url);
  t.is(applied.code, 0, applied.stderr);
  const client = await connectNats({ servers: env.server.url, name: 'check' });
  t.teardown(() => client.close());
  const objects = await openKvStoreOn(client, { hosts: false });
  t.teardown(() => objects.close());
  await waitUntil(async () => (await objects.get('MaasCluster', 'lab/c1')) !== undefined, 5_000, 'the MaasCluster is in the object store');

  const r = await env.mf('delete', '-f', file, '--nats', env.server.url);
  t.is(r.code, 0, r.stderr);
  t.deepEqual(lines(r.stdout), ['cluster lab/c1 deleted', 'maascluster lab/c1 deleted', 'maasmachine lab/c1-control-plane-x7k2p deleted', 'baremetalhost metal3/h1 deleted']);
  t.deepEqual(lines(r.stderr), ['note: MaasMachineTemplate/c1-control-plane: skipped (kind not managed by metalfleet)']);
  await waitUntil(async () => (await objects.list('MaasCluster')).length === 0 && (await objects.list('MaasMachine')).length === 0 && (await objects.list('Cluster')).length === 0, 5_000, 'the object store sees the deletes');
  const { specs } = await env.buckets();
  t.deepEqual(await specs.keys(), []);
  const audit = await readAudit(client, subjects(), { host: 'lab/c1' });
  t.true(audit.some((a) => a.action === 'delete' && a.outcome === 'applied'));

  // Gone now: each is not found, by kind.
  const again = await env.mf('delete', 'maascluster', 'lab/c1', '--nats', env.server.url);
  t.is(again.code, 1);
  t.deepEqual(lines(again.stderr), ['error: maascluster lab/c1 not found']);
});

it('cli delete - by type: a MaasCluster with a finalizer is terminating; a BareMetalHost of the same name is left alone', async (t) => {
  const env = await setup(t);
  const [, maasCluster = ''] = await maasDocs();
  const applied = await env.mf('apply', '-f', await env.file('c1.yaml', maasCluster, hostYaml('c1').replace('namespace: metal3', 'namespace: lab')), '--nats', env.server.url);
  t.is(applied.code, 0, applied.stderr);
  const client = await connectNats({ servers: env.server.url, name: 'check' });
  t.teardown(() => client.close());
  const objects = await openKvStoreOn(client, { hosts: false });
  t.teardown(() => objects.close());
  await waitUntil(async () => (await objects.get('MaasCluster', 'lab/c1')) !== undefined, 5_000, 'the MaasCluster is in the object store');
  await objects.addFinalizer('MaasCluster', 'lab/c1', 'maascluster.infrastructure.cluster.x-k8s.io');

  const r = await env.mf('delete', 'MaasCluster', 'lab/c1', '--nats', env.server.url);
  t.is(r.code, 0, r.stderr);
  t.deepEqual(lines(r.stdout), ['maascluster lab/c1 terminating (finalizers: maascluster.infrastructure.cluster.x-k8s.io)']);
  await waitUntil(async () => Boolean((await objects.get('MaasCluster', 'lab/c1'))?.metadata.deletionTimestamp), 5_000, 'the MaasCluster is marked for deletion');
  const store = await env.store();
  t.truthy(await store.get('lab/c1'), 'the BareMetalHost lab/c1 is not touched');

  const unknown = await env.mf('delete', 'machinedeployment', 'lab/c1', '--nats', env.server.url);
  t.is(unknown.code, 2);
  t.regex(unknown.stderr, /unknown type "machinedeployment": metalfleet deletes host \(also BareMetalHost \(bmh, bmhost\), MaasMachine, MaasCluster, HardwareData \(hd\), FirmwareSchema, HostFirmwareSettings \(hfs\), HostFirmwareComponents, HostUpdatePolicy\)/);
});

it('cli delete - by file: a bad document is refused naming the file and the document, and nothing is deleted', async (t) => {
  const env = await setup(t);
  const docs = await maasDocs();
  const good = await env.file('maas.yaml', ...docs);
  const applied = await env.mf('apply', '-f', good, '--nats', env.server.url);
  t.is(applied.code, 0, applied.stderr);
  const client = await connectNats({ servers: env.server.url, name: 'check' });
  t.teardown(() => client.close());
  const objects = await openKvStoreOn(client, { hosts: false });
  t.teardown(() => objects.close());
  await waitUntil(async () => (await objects.get('MaasMachine', 'lab/c1-control-plane-x7k2p')) !== undefined, 5_000, 'the MaasMachine is in the object store');

  // Document 3: a MaasMachine without a name; document 4: YAML that does not parse.
  const unnamed = 'apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: MaasMachine\nmetadata:\n  namespace: lab\nspec:\n  image: x';
  const bad = await env.file('bad.yaml', docs[0] ?? '', docs[1] ?? '', unnamed, 'kind: [unclosed');
  const r = await env.mf('delete', '-f', bad, '--nats', env.server.url);
  t.is(r.code, 1);
  t.is(r.stdout, '');
  const errors = lines(r.stderr);
  t.true(errors.some((l) => l.startsWith(`error: ${bad}:`) && l.includes('document 3: MaasMachine has no metadata.name')), r.stderr);
  t.true(errors.some((l) => l.startsWith(`error: ${bad}:`) && l.includes('document 4: ')), r.stderr);
  t.is(errors.at(-1), 'nothing was deleted');
  t.truthy(await objects.get('Cluster', 'lab/c1'));
  t.truthy(await objects.get('MaasCluster', 'lab/c1'));
});

test('cli delete - on the embedded store (memory KV): a MaasCluster goes from the object store, a BareMetalHost from the host store, and an unknown kind is refused naming the kinds', async (t) => {
  const transport = createMemoryTransport();
  t.teardown(() => transport.close());
  const local = await openLocalStore(transport, { maas: {} });
  t.teardown(() => local.close());
  const docs = await maasDocs();
  const result = await local.applyText([...docs, hostYaml('c1').replace('namespace: metal3', 'namespace: lab')].join('\n---\n'), 'maas.yaml');
  t.true(result.ok, JSON.stringify(result.issues));
  const server = startStoreServer({
    transport, store: local, objects: () => Promise.resolve(local.objects!), node: 'embedded', log: silentLogger, guard: trustedGuard(),
    isObject: (object) => storedKindOf(object) !== null,
    isNotFound: (error) => error instanceof ResourceNotFound,
  });
  t.teardown(() => server.close());

  t.deepEqual(await deleteThroughNode(transport, { host: 'lab/c1', kind: 'MaasCluster' }), { host: 'lab/c1', outcome: 'deleted', finalizers: [] });
  t.is(await local.objects!.get('MaasCluster', 'lab/c1'), undefined);
  t.truthy(await local.get('lab/c1'), 'a delete of the MaasCluster leaves the BareMetalHost of the same name');
  t.truthy(await local.objects!.get('Cluster', 'lab/c1'), 'and the Cluster of the same name');
  // No kind is a BareMetalHost, as before kinds were sent.
  t.like(await deleteThroughNode(transport, { host: 'lab/c1' }), { outcome: 'deleted' });
  t.is(await local.get('lab/c1'), undefined);
  const missing = await t.throwsAsync(deleteThroughNode(transport, { host: 'lab/c1', kind: 'MaasCluster' }));
  t.regex(missing.message, /MaasCluster lab\/c1 not found/);
  const wrong = await t.throwsAsync(call(transport, subjects().storeDelete, { host: 'lab/c1', kind: 'Pod' }, z.unknown(), { timeoutMs: 2_000 }));
  t.regex(wrong.message, /invalid message at kind: must be one of BareMetalHost, MaasMachine, MaasCluster, Machine, Cluster/);
});
