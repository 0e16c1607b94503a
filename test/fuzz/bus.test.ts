// Generated NATS messages to a running node's command, store, introspection and capacity
// subjects on a real nats-server: random bytes and near-valid MessagePack maps; then generated
// values written straight into the KV buckets it reads. Every request is
// answered (an error reply is fine) within its deadline, the node keeps running and answering,
// and its memory stays bounded.
import test from 'ava';
import fc from 'fast-check';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Packr } from 'msgpackr';
import { NATS_HOSTS_BUCKET, NATS_STATUS_BUCKET, openNatsStoreOn } from '../../src/adapters/store/nats-store.ts';
import { hostKvKey } from '../../src/adapters/store/nats-keys.ts';
import { loadSecretFiles } from '../../src/adapters/store/nats-secrets.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LEASE_BUCKET, MEMBER_BUCKET } from '../../src/node/index.ts';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { connectNats } from '../../src/bus/nats-transport.ts';
import { subjects } from '../../src/bus/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { sharedSubstrate } from '../../src/node/index.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { startLocalNode } from '../support/local-node.ts';
import { openNodeKvStore } from '../../src/cli/node-store.ts';
import { startNatsServer } from '../support/nats-server.ts';
import { bmh } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';
import { fuzzRuns, fuzzSeed, replayHint } from './seed.ts';

const seed = fuzzSeed();
const NODE = 'fuzz-node';
const REPLY_MS = 3_000;
// Any MessagePack, records and extensions included: what a hostile client could send.
const anyPack = new Packr({ useRecords: false, moreTypes: true });

const KEYS = ['type', 'host', 'key', 'requestId', 'reason', 'mode', 'holder', 'node', 'pool', 'operation', 'exempt', 'waitedMs', 'holders', 'limit', 'state', 'backend', 'errors', 'prefix', 'object', 'objects', 'signature', 'signer', 'nonce', 'issuedAt', 'payload', 'epoch'];
const TYPES = ['powerOn', 'powerOff', 'reboot', 'inspect', 'reprovision', 'pause', 'unpause', 'detach', 'delete', 'release', 'acquire', 'renew', 'figures', 'setLimit', 'apply'];

const oddString = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom('lab/h-0', 'lab/missing', '/', 'lab/', '../../etc', 'x'.repeat(5000), '\u0000', 'lab/h-0\u001b[2J', 'ironic:http://127.0.0.1:6385'),
);
const fieldValue = fc.oneof(
  { weight: 3, arbitrary: oddString },
  { weight: 1, arbitrary: fc.constantFrom(...TYPES) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null)) },
  { weight: 1, arbitrary: fc.array(fc.record({ holder: oddString, pool: oddString }), { maxLength: 5 }) },
);
const nearValidMap = fc.dictionary(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...KEYS) }, { weight: 1, arbitrary: oddString }), fieldValue, { maxKeys: 7 });

const payload = fc.oneof(
  { weight: 3, arbitrary: nearValidMap.map((m) => Uint8Array.from(anyPack.pack(m))) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 512 }) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 4 }).map((v) => Uint8Array.from(anyPack.pack(v))) },
  { weight: 1, arbitrary: fc.constantFrom(new Uint8Array(0), Uint8Array.from([0xc1]), Uint8Array.from([0xdd, 0xff, 0xff, 0xff, 0xff]), Uint8Array.from([0xdf, 0x7f, 0xff, 0xff, 0xff]), new Uint8Array(600_000).fill(0x91)) },
  // A valid request now and then: the node must still answer those right.
  { weight: 1, arbitrary: fc.constantFrom({}, { type: 'figures' }, { host: 'lab/h-0' }, { type: 'powerOff', host: 'lab/h-0' }).map((m) => Uint8Array.from(anyPack.pack(m))) },
);

test('fuzz bus - every generated request to a running node is answered; the node runs on', async (t) => {
  t.timeout(110_000);
  t.log(replayHint(seed));
  const server = await startNatsServer();
  t.teardown(() => server.dispose());
  const dir = await mkdtemp(join(tmpdir(), 'mf-fuzz-bus-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'secrets.yaml'), 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: bmc\n  namespace: lab\nstringData:\n  username: admin\n  password: fuzz-pw\n');
  const secrets = await loadSecretFiles([join(dir, 'secrets.yaml')]);
  const transport = await connectNats({ servers: server.url, name: NODE });
  // The node's one store and what apply and delete write, opened as `metalfleet node` opens them.
  const kv = await openNodeKvStore(transport, { secrets, log: silentLogger, replicas: 1, maas: false });
  const node = await startLocalNode({
    name: NODE,
    shardCount: 4,
    machine: { ...DEFAULT_MACHINE_CONFIG },
    capacity: { limits: {}, defaultLimit: Number.POSITIVE_INFINITY, ttlMs: 30_000 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 5, maxMs: 20 } },
    askTimeoutMs: 2_000,
    // Unsigned commands reach the handlers: what a hostile payload can get to.
    security: { allowUnsigned: true },
  }, kv.stores, { provisioner: createFixtureProvisioner({ demoBehaviours: false }) }, { log: silentLogger }, sharedSubstrate(transport));
  t.teardown(async () => {
    await node.stop({ graceful: false });
    await kv.close();
  });

  const client: NatsConnection = await connect({ servers: server.url, name: 'fuzz-client' });
  t.teardown(() => client.close());
  const adminTransport = await connectNats({ servers: server.url, name: 'fuzz-admin' });
  t.teardown(() => adminTransport.close());
  const admin = await openNatsStoreOn(adminTransport);
  t.teardown(() => admin.close());
  t.true((await admin.apply([bmh('h-0', { image: false }), bmh('h-1', { image: false })])).ok);
  await waitUntil(() => ['lab/h-0', 'lab/h-1'].every((k) => node.stats.hosts.get(k)?.state === 'available'), 20_000, 'both hosts available');

  const s = subjects();
  const targets = [
    ...[0, 1, 2, 3].map((shard) => s.command(shard)),
    s.capacity,
    s.storeApply,
    s.storeDelete,
    ...['info', 'hosts', 'actors', 'shards', 'capacity', 'inspect', 'clusters'].map((verb) => s.introspectVerb(NODE, verb)),
  ];
  const rssBefore = process.memoryUsage().rss;
  const unanswered: string[] = [];
  let answered = 0;
  let slowest = { ms: 0, subject: '' };
  const fuzzStarted = Date.now();
  try {
    await fc.assert(fc.asyncProperty(fc.constantFrom(...targets), payload, async (subject, data) => {
      const started = Date.now();
      try {
        await client.request(subject, data, { timeout: REPLY_MS });
        answered += 1;
        const ms = Date.now() - started;
        if (ms > slowest.ms) slowest = { ms, subject };
      } catch (error) {
        const what = `${subject} <- ${Buffer.from(data.subarray(0, 64)).toString('hex')}${data.length > 64 ? `... (${data.length} bytes)` : ''}: ${error instanceof Error ? error.message : String(error)}`;
        unanswered.push(what);
        throw new Error(`no answer: ${what}`);
      }
    }), { seed, numRuns: fuzzRuns(4000) });
  } catch (error) {
    t.log(replayHint(seed));
    throw error;
  }
  t.log(`${Date.now() - fuzzStarted} ms for the requests; slowest ${slowest.ms} ms (${slowest.subject})`);
  t.deepEqual(unanswered, []);
  t.is(answered, fuzzRuns(4000));

  // Still running and answering properly, and its memory did not run away.
  t.is(node.system.state, 'running');
  // A generated command may well have deleted lab/h-0 (unsigned commands are allowed here); h-1
  // is never named by the generator.
  t.true(node.stats.hosts.has('lab/h-1'));
  await admin.applyIntent('lab/h-1', { online: false });
  await waitUntil(() => node.stats.hosts.get('lab/h-1')?.poweredOn === false, 20_000, 'h-1 still takes intent');

  // Generated values written straight into the buckets the node reads, under keys it uses and
  // keys it does not: it logs and carries on; a good apply afterwards runs the hosts again.
  const buckets = await Promise.all([NATS_HOSTS_BUCKET, NATS_STATUS_BUCKET, MEMBER_BUCKET, LEASE_BUCKET].map((b) => adminTransport.kv(b)));
  const kvKeys = [hostKvKey('lab/h-0'), hostKvKey('lab/h-1'), hostKvKey('lab/h-2'), 'lab.fuzz_2Dx', 'node.ghost', 'broker-x', 'shard.77'];
  const kvValue = fc.oneof(
    fc.uint8Array({ maxLength: 256 }),
    fc.jsonValue({ maxDepth: 4 }).map((v) => Buffer.from(JSON.stringify(v))),
    fc.record({ apiVersion: fc.constant('metal3.io/v1alpha1'), kind: fc.constant('BareMetalHost'), metadata: fc.record({ name: fc.constantFrom('h-0', 'h-1', 'h-2'), namespace: fc.constantFrom('lab', 'x') }), spec: fc.dictionary(fc.constantFrom('online', 'bmc', 'image', 'bootMACAddress'), fc.anything({ maxDepth: 2 })), status: fc.anything({ maxDepth: 2 }) }, { requiredKeys: [] })
      .map((v) => Buffer.from(JSON.stringify(v) ?? 'null')),
  );
  await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: buckets.length - 1 }), fc.constantFrom(...kvKeys), kvValue, async (b, key, data) => {
    await buckets[b]!.put(key, data);
  }), { seed: seed + 2, numRuns: fuzzRuns(600) });
  t.is(node.system.state, 'running');
  t.true((await admin.apply([bmh('h-0', { image: false }), bmh('h-1', { image: false, online: true }), bmh('h-2', { image: false })])).ok);
  await waitUntil(() => ['lab/h-0', 'lab/h-1', 'lab/h-2'].every((k) => node.stats.hosts.get(k)?.state === 'available'), 30_000, 'every host runs again after the good apply');
  // Keys that name no host of the manifests (node.ghost, shard.77 in mf-hosts) stay listed as unreadable.
  // A host's status record the fuzz broke is listed until the host's next status write replaces
  // it, which may land just after its actor reached 'available' (seen 200 ms later under load).
  const unreadable = async (): Promise<string[]> => (await node.introspection.hosts({}))
    .filter((h) => h.key.startsWith('lab/') && h.errorMessage?.includes('does not parse')).map((h) => `${h.key}: ${h.errorMessage}`);
  await waitUntil(async () => (await unreadable()).length === 0, 10_000, 'no lab host listed unreadable once its status is written').catch(async (error: unknown) => {
    throw new Error(`${error instanceof Error ? error.message : String(error)}: ${(await unreadable()).join('; ')}`);
  });
  t.deepEqual(await unreadable(), []);

  const grownMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  t.true(grownMb < 512, `rss grew ${grownMb.toFixed(0)} MB`);
  t.log(`${answered} requests answered, rss +${grownMb.toFixed(0)} MB`);
});
