// A malformed value in a KV bucket is an error on that host, never a crash (issue 19.5): garbage
// bytes, JSON of the wrong shape and a record failing its schema are written straight into the
// buckets of a running node on a real nats-server; the node logs the key and the reason (never
// the value), the host shows the error in introspection, the others carry on, a good value heals.
import test from 'ava';
import { OBJECT_LAYOUTS } from '../../src/adapters/store/kv-layouts.ts';
import { besideObjects } from '../support/object-buckets.ts';
import { openNatsStoreOn, NATS_HOSTS_BUCKET, NATS_STATUS_BUCKET, type NatsStore } from '../../src/adapters/store/nats-store.ts';
import { hostKvKey } from '../../src/adapters/store/nats-keys.ts';
import { loadSecretFiles } from '../../src/adapters/store/nats-secrets.ts';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { connectNats } from '../../src/bus/nats-transport.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { sharedSubstrate } from '../../src/node/index.ts';
import { LEASE_BUCKET } from '../../src/node/start-node.ts';
import { shardOf } from '../../src/api/index.ts';
import { MEMBER_BUCKET } from '../../src/cluster/introspect/index.ts';
import type { Logger } from '../../src/ports/index.ts';
import { openKvStore } from '../../src/adapters/store/kv-store.ts';
import { OBJECTS_BUCKET } from '../../src/machines/buckets.ts';
import { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import { StoreError } from '../../src/ports/index.ts';
import { startLocalNode } from '../support/local-node.ts';
import { openNodeKvStore } from '../../src/cli/node-store.ts';
import { startNatsServer } from '../support/nats-server.ts';
import { bmh } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PASSWORD = 'malformed-pw-Zq7';
// A value that must never reach a log line: it stands for whatever a bad record holds.
const SECRETISH = 'do-not-log-this-value-8841';

type Line = { level: string; msg: string; fields: Record<string, unknown> };

function recordingLogger(lines: Line[], bindings: Record<string, unknown> = {}): Logger {
  const at = (level: string) => (fieldsOrMsg: unknown, msg?: string) => {
    const fields = typeof fieldsOrMsg === 'object' && fieldsOrMsg !== null ? fieldsOrMsg as Record<string, unknown> : {};
    lines.push({ level, msg: typeof fieldsOrMsg === 'string' ? fieldsOrMsg : msg ?? '', fields: { ...bindings, ...fields } });
  };
  return {
    debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'),
    child: (more: Record<string, unknown>) => recordingLogger(lines, { ...bindings, ...more }),
  } as unknown as Logger;
}

test('store malformed - bad values in every bucket a node reads: logged, shown on the host, the rest carry on, a good value heals', async (t) => {
  const server = await startNatsServer();
  t.teardown(() => server.dispose());
  const dir = await mkdtemp(join(tmpdir(), 'mf-malformed-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'secrets.yaml'), `apiVersion: v1\nkind: Secret\nmetadata:\n  name: bmc\n  namespace: lab\nstringData:\n  username: admin\n  password: ${PASSWORD}\n`);
  const secrets = await loadSecretFiles([join(dir, 'secrets.yaml')]);

  const transport = await connectNats({ servers: server.url, name: 'malformed-node' });
  const lines: Line[] = [];
  const fixture = createFixtureProvisioner({ demoBehaviours: false });
  // The node's one store, opened as `metalfleet node` opens it.
  const kv = await openNodeKvStore(transport, { secrets, log: recordingLogger(lines), replicas: 1, maas: false });
  const node = await startLocalNode({
    name: 'malformed-node',
    shardCount: 4,
    machine: { ...DEFAULT_MACHINE_CONFIG },
    capacity: { limits: {}, defaultLimit: Number.POSITIVE_INFINITY, ttlMs: 30_000 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 5, maxMs: 20 } },
    askTimeoutMs: 2_000,
    // This test speaks to the stores directly; who may send commands is another test's concern.
    security: { allowUnsigned: true },
  }, kv.stores, { provisioner: fixture }, { log: recordingLogger(lines) }, sharedSubstrate(transport));
  t.teardown(async () => {
    await node.stop({ graceful: false });
    await kv.close();
  });

  const writer = await connectNats({ servers: server.url, name: 'malformed-writer' });
  t.teardown(() => writer.close());
  const admin: NatsStore = await openNatsStoreOn(writer);
  t.teardown(() => admin.close());
  const names = ['good-0', 'good-1', 'bad-bytes', 'bad-shape', 'bad-status'];
  const applied = await admin.apply(names.map((n) => bmh(n, { image: false })));
  t.true(applied.ok, JSON.stringify(applied.issues));
  const state = (key: string) => node.stats.hosts.get(key)?.state;
  await waitUntil(() => names.every((n) => state(`lab/${n}`) === 'available'), 20_000, 'every host available');

  const hosts = await writer.kv(NATS_HOSTS_BUCKET);
  const statuses = await writer.kv(NATS_STATUS_BUCKET);
  const members = await writer.kv(MEMBER_BUCKET);
  const leases = await writer.kv(LEASE_BUCKET);
  const garbage = Uint8Array.from([0xff, 0x00, 0xc1, 0x92, ...Buffer.from(SECRETISH)]);
  await hosts.put(hostKvKey('lab/bad-bytes'), garbage);
  await hosts.put(hostKvKey('lab/bad-shape'), Buffer.from(JSON.stringify({ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'bad-shape', namespace: 'lab' }, spec: { online: SECRETISH } })));
  // A host whose only record was never readable: no actor runs it, yet it is listed.
  await hosts.put(hostKvKey('lab/never-good'), garbage);
  await statuses.put(hostKvKey('lab/bad-status'), Buffer.from(JSON.stringify({ status: { provisioning: SECRETISH } })));
  await members.put('node.ghost', garbage);
  await members.put('node.malformed-node-2', Buffer.from('{"not":"a heartbeat"}'));
  await leases.put('shard.99', garbage);
  // Over the live lease of good-1's shard: the node loses it, and takes it again once the bad
  // value has expired with the bucket's TTL.
  const leaseShard = shardOf('lab/good-1', 4);
  const epochBefore = node.shards.owned().get(leaseShard)?.epoch;
  t.truthy(epochBefore);
  await leases.put(`shard.${leaseShard}`, garbage);

  // The hosts with bad records say so where a user looks.
  const errorOf = async (key: string): Promise<string | undefined> => {
    const view = (await node.introspection.hosts({})).find((h) => h.key === key);
    return view?.errorMessage || undefined;
  };
  await waitUntil(async () => (await errorOf('lab/bad-bytes')) !== undefined && (await errorOf('lab/bad-shape')) !== undefined, 10_000, 'the bad hosts show an error');
  const bytesError = (await errorOf('lab/bad-bytes'))!;
  t.regex(bytesError, /mf-hosts/);
  t.regex(bytesError, /not JSON|does not parse/);
  t.regex((await errorOf('lab/bad-shape'))!, /spec\.online/);
  await waitUntil(async () => (await node.introspection.hosts({})).some((h) => h.key === 'lab/never-good'), 10_000, 'the never-good host is listed');
  const neverGood = (await node.introspection.hosts({})).find((h) => h.key === 'lab/never-good');
  t.is(neverGood?.state, 'unreadable');
  t.regex(neverGood?.errorMessage ?? '', /mf-hosts \(revision \d+\) does not parse/);
  // `metalfleet inspect` shows it too, as the newest warning.
  const inspected = await node.introspection.inspect('lab/bad-bytes');
  t.true(inspected.ok);
  const newest = inspected.ok ? inspected.host.recent.at(-1) : undefined;
  t.is(newest?.reason, 'StoreRecordInvalid');
  t.regex(newest?.message ?? '', /mf-hosts \(revision \d+\) does not parse/);
  t.regex((await errorOf('lab/bad-status')) ?? '', /mf-status \(revision \d+\) does not parse: status\./);

  // Nothing crashed: the node runs, the other hosts still take commands and move.
  t.is(node.system.state, 'running');
  await admin.applyIntent('lab/good-0', { online: false });
  await waitUntil(() => node.stats.hosts.get('lab/good-0')?.poweredOn === false, 20_000, 'good-0 powered off');
  await admin.applyIntent('lab/good-1', { online: false });
  await waitUntil(() => (node.shards.owned().get(leaseShard)?.epoch ?? epochBefore) !== epochBefore, 30_000, 'the overwritten shard lease taken again, at a new epoch');
  await waitUntil(() => node.stats.hosts.get('lab/good-1')?.poweredOn === false, 30_000, 'good-1, whose shard lease was overwritten, runs again and powers off');

  // No log line carries a bad value; each names its key and reason.
  const warned = lines.filter((l) => l.level === 'warn' || l.level === 'error');
  t.false(JSON.stringify(lines).includes(SECRETISH), 'a bad value reached the log');
  t.false(JSON.stringify(lines).includes(PASSWORD));
  t.true(warned.some((l) => l.fields.kind === 'BareMetalHost' && l.fields.key === 'lab/bad-bytes' && typeof l.fields.reason === 'string'), JSON.stringify(warned.map((l) => l.msg)));

  // A good value heals: the host is read again and its error is gone.
  t.true((await admin.apply([bmh('bad-bytes', { image: false }), bmh('bad-shape', { image: false }), bmh('never-good', { image: false })])).ok);
  await waitUntil(() => state('lab/never-good') === 'available', 20_000, 'the never-good host, applied, runs');
  await waitUntil(async () => (await errorOf('lab/bad-bytes')) === undefined && (await errorOf('lab/bad-shape')) === undefined, 10_000, 'the healed hosts show no error');
  await admin.applyIntent('lab/bad-bytes', { online: false });
  await waitUntil(() => node.stats.hosts.get('lab/bad-bytes')?.poweredOn === false, 20_000, 'the healed host takes a command');
  // A bad status is replaced by the controller's next status write.
  await admin.applyIntent('lab/bad-status', { online: false });
  await waitUntil(async () => (await errorOf('lab/bad-status')) === undefined, 20_000, 'the bad status is written over');
  t.is(node.system.state, 'running');
});

test('store malformed - a bad record in mf-objects keeps the last good version, is told and logged without its value, and an apply replaces it', async (t) => {
  const kv = new MemoryKvStore();
  const bucket = kv.bucket(OBJECTS_BUCKET);
  const lines: Line[] = [];
  const store = await openKvStore({ layouts: OBJECT_LAYOUTS, bucket: besideObjects(bucket), log: recordingLogger(lines) });
  t.teardown(() => store.close());
  const machine = (name: string, image = 'ubuntu') => ({ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine', metadata: { name, namespace: 'default' }, spec: { minCPU: 1, minMemory: 1024, image } });
  t.true((await store.apply([machine('m-0'), machine('m-1')])).ok);

  await bucket.put(`MaasMachine.${hostKvKey('default/m-0')}`, Uint8Array.from([0xff, ...Buffer.from(SECRETISH)]));
  await waitUntil(() => store.recordProblem('MaasMachine', 'default/m-0') !== undefined, 2_000, 'the problem is told');
  t.regex(store.recordProblem('MaasMachine', 'default/m-0')!, /^store: its record in mf-objects \(revision \d+\) does not parse: \d+ bytes that are neither MessagePack nor JSON/);
  t.is((await store.get('MaasMachine', 'default/m-0'))?.spec?.image, 'ubuntu', 'the last good version stands');
  t.is(store.recordProblem('MaasMachine', 'default/m-1'), undefined);
  t.false(JSON.stringify(lines).includes(SECRETISH));
  t.true(lines.some((l) => l.level === 'warn' && typeof l.fields.reason === 'string' && String(l.fields.key).includes('m-0')));

  // Its status is its own record: the owner's status writes go on, as a host's do.
  await store.writeStatus('MaasMachine', 'default/m-0', { ready: true });
  t.deepEqual((await store.get('MaasMachine', 'default/m-0'))?.status, { ready: true });
  // A write of the object over what nobody can read is refused for good, saying why.
  const refused = await store.patchSpec('MaasMachine', 'default/m-0', { image: 'noble' }).catch((e: unknown) => e);
  t.true(refused instanceof StoreError);
  t.false((refused as StoreError).retryable);
  t.regex((refused as StoreError).message, /does not parse/);

  // An apply writes over it; the problem is gone.
  t.true((await store.apply([machine('m-0', 'jammy')])).ok);
  t.is(store.recordProblem('MaasMachine', 'default/m-0'), undefined);
  t.is((await store.get('MaasMachine', 'default/m-0'))?.spec?.image, 'jammy');
});
