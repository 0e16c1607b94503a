// Introspection as the CLI uses it: the embedded node answering over the in-memory bus, and a
// two-node cluster of `metalfleet node` processes answering over NATS.
import test from 'ava';
import { createMemoryBus, encode, subjects } from '../../src/bus/index.ts';
import type { IntrospectVerb } from '../../src/bus/messages/introspect.ts';
import { InfoResponse, PingResponse, StatsResponse } from '../../src/bus/messages/index.ts';
import { connect } from '@nats-io/transport-node';
import { gather, inspectHost, listNodes, NotFound, serveIntrospection } from '../../src/cluster/introspect/index.ts';
import type { Transport } from '../../src/ports/index.ts';
import { shardOf } from '../../src/api/index.ts';
import { BMC_PASSWORD, withCluster } from '../support/cluster.ts';
import { putHostRecord } from '../support/local-store.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import { maasReady, startMaasNode } from '../support/maas-node.ts';
import { bmh, secret, startTestNode } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';
import { serveEmbedded } from '../support/embedded-introspection.ts';

const PASSWORD = 'hunter2-Xq9';
const TIMEOUT = { timeoutMs: 2_000 };

/** Every verb's raw reply bytes, as they cross the bus. */
async function rawReplies(transport: Transport, node: string, host: string): Promise<Buffer[]> {
  const requests: Array<[IntrospectVerb, unknown]> = [
    ['info', {}], ['hosts', {}], ['actors', {}], ['shards', {}], ['capacity', {}], ['inspect', { host }],
  ];
  const out: Buffer[] = [];
  for (const [verb, req] of requests) {
    out.push(Buffer.from(await transport.request(subjects().introspectVerb(node, verb), encode(req), TIMEOUT)));
  }
  return out;
}

test('introspect - the embedded node answers every verb over the in-memory bus, with no secret in any reply', async (t) => {
  // Provisioning takes ten minutes here: hosts stay blocked on their slots while we look.
  const { node, store, substrate } = await startTestNode({ limit: 5, fixture: { latencyMs: { provision: 600_000 }, failHosts: { 'bad-1': ['register'] } } });
  const bus = createMemoryBus();
  const server = bus.connect('embedded');
  const client = bus.connect('cli');
  const source = node.introspection;
  const service = serveIntrospection(server, source, { node: 'embedded' });
  const opts = { ...TIMEOUT, nodes: ['embedded'] };
  try {
    const hosts = [
      ...Array.from({ length: 19 }, (_, i) => bmh(`h-${i}`)),
      bmh('bad-1'),
    ];
    const applied = await store.applyObjects([secret('bmc', 'lab', { username: 'admin', password: PASSWORD }), ...hosts]);
    t.true(applied.ok, JSON.stringify(applied).slice(0, 500));
    // Credentials in a BMC address's userinfo must not come back out. Apply refuses such an
    // address now; a record written before that (or by hand) is what this host stands for.
    await putHostRecord(substrate.transport, bmh('leaky', { address: `redfish://admin:${PASSWORD}@10.0.0.9/redfish/v1/Systems/1` }));

    await waitUntil(async () => {
      const c = await gather(client, 'capacity', {}, opts);
      const pool = c.replies[0]?.value.pools[0];
      return pool?.inUse.length === 5 && pool.waiting.length === 15
        && [...pool.inUse, ...pool.waiting].every((u) => u.operation === 'provision');
    }, 10_000, '5 hosts provisioning with a slot, 15 waiting');
    await waitUntil(() => node.stats.hosts.get('lab/bad-1')?.errorType === 'registration error', 5_000, 'bad-1 failed to register');

    const capacity = await gather(client, 'capacity', {}, opts);
    t.deepEqual(capacity.missing, []);
    t.deepEqual(capacity.errors, []);
    const cap = capacity.replies[0]!.value;
    t.is(cap.node, 'embedded');
    t.true(cap.broker);
    t.is(cap.pools.length, 1);
    t.is(cap.pools[0]!.limit, 5);
    t.is(cap.pools[0]!.inUse.length, 5);
    t.is(cap.pools[0]!.waiting.length, 15);
    t.true(cap.pools[0]!.inUse.every((u) => u.operation === 'provision' && !u.exempt));
    t.true(cap.pools[0]!.longestWaitMs >= cap.pools[0]!.waiting[0]!.waitingMs - 1);

    const info = (await gather(client, 'info', {}, opts)).replies[0]!.value;
    t.is(info.node, 'embedded');
    t.is(info.hosts, 21);
    t.is(info.pid, process.pid);
    t.true(info.broker);
    t.true(info.shards > 0 && info.shards <= 16);
    t.true(info.memory.rss > 0 && info.memory.heapUsed > 0);
    t.true(info.eventLoopLagMs >= 0);

    const all = (await gather(client, 'hosts', {}, opts)).replies[0]!.value.hosts;
    t.is(all.length, 21);
    t.true(all.every((h) => h.kind === 'BareMetalHost' && h.backend === 'fixture' && h.shard < 16));
    // A host waits for its slot before it leaves 'available' (BMO's order).
    const provisioning = (await gather(client, 'hosts', { state: 'provisioning' }, opts)).replies[0]!.value.hosts;
    t.deepEqual(provisioning.map((h) => h.key).sort(), cap.pools[0]!.inUse.map((u) => u.holder).sort());
    const available = (await gather(client, 'hosts', { state: 'available' }, opts)).replies[0]!.value.hosts;
    t.deepEqual(available.map((h) => h.key).sort(), cap.pools[0]!.waiting.map((u) => u.holder).sort());
    const failed = (await gather(client, 'hosts', { errors: true }, opts)).replies[0]!.value.hosts;
    t.deepEqual(failed.map((h) => h.key), ['lab/bad-1']);
    t.is(failed[0]!.errorType, 'registration error');
    t.truthy(failed[0]!.errorMessage);
    t.is((await gather(client, 'hosts', { backend: 'maas' }, opts)).replies[0]!.value.hosts.length, 0);

    const actors = (await gather(client, 'actors', {}, opts)).replies[0]!.value.actors;
    const hostActors = actors.filter((a) => a.kind === 'host');
    t.is(hostActors.length, 21);
    t.true(actors.some((a) => a.kind === 'shard'));
    t.true(actors.some((a) => a.kind === 'capacity-broker'));
    const shardActor = actors.find((a) => a.kind === 'shard')!;
    const under = (await gather(client, 'actors', { prefix: shardActor.path }, opts)).replies[0]!.value.actors;
    t.true(under.length >= 2 && under.every((a) => a.path.startsWith(shardActor.path)));

    const shards = (await gather(client, 'shards', {}, opts)).replies[0]!.value.shards;
    t.is(shards.reduce((n, s) => n + s.hosts, 0), 21);
    // The embedded node holds real leases on its own KV: every shard, each with its epoch.
    t.is(shards.length, 16);
    t.true(shards.every((s) => s.epoch > 0 && s.leaseAgeMs >= 0));
    t.is(new Set(shards.map((s) => s.epoch)).size, 16, 'each lease its own revision');

    const inspected = await inspectHost(client, 'lab/leaky', { ...opts, shardCount: 16 });
    t.is(inspected.node, 'embedded');
    const h = inspected.value.host;
    t.is(h.key, 'lab/leaky');
    t.true(h.state === 'provisioning' || h.state === 'available');
    t.is(h.spec.bmcAddress, 'redfish://10.0.0.9/redfish/v1/Systems/1');
    t.is(h.spec.credentialsName, 'bmc');
    t.is(h.spec.imageUrl, 'http://images/os.qcow2');
    t.true(h.recent.length > 0, 'recent transitions');
    t.true(h.recent.every((r) => typeof r.reason === 'string' && r.at > 0));
    t.true(h.slot.phase === 'held' || h.slot.phase === 'waiting');

    const bad = (await inspectHost(client, 'lab/bad-1', { ...opts, shardCount: 16 })).value.host;
    t.is(bad.status.errorType, 'registration error');
    t.true(bad.recent.some((r) => r.severity === 'Warning'));

    const missingHost = await t.throwsAsync(inspectHost(client, 'lab/nope', { ...opts, shardCount: 16 }));
    t.true(missingHost instanceof NotFound);
    t.regex(missingHost.message, /lab\/nope not found/);

    // A node that is not there is named, not waited for.
    const ghost = await gather(client, 'info', {}, { ...TIMEOUT, nodes: ['embedded', 'ghost'] });
    t.deepEqual(ghost.replies.map((r) => r.node), ['embedded']);
    t.deepEqual(ghost.missing, ['ghost']);

    // Nothing heartbeats on the embedded bus: no members, and no error.
    t.deepEqual(await listNodes(client), []);

    for (const key of ['lab/leaky', 'lab/bad-1', 'lab/h-3']) {
      for (const bytes of await rawReplies(client, 'embedded', key)) t.false(bytes.includes(PASSWORD), 'the BMC password is in a reply');
    }
  } finally {
    await service.close();
    source.close();
    await node.stop();
    await client.close();
    await server.close();
  }
});

test('introspect - requests that do not match the schema are refused with a precise error', async (t) => {
  const { node } = await startTestNode();
  const bus = createMemoryBus();
  const server = bus.connect('embedded');
  const client = bus.connect('cli');
  const source = node.introspection;
  const service = serveIntrospection(server, source, { node: 'embedded' });
  try {
    await t.throwsAsync(gather(client, 'hosts', { backend: 'vmware' } as never, { ...TIMEOUT, nodes: ['embedded'] }), { message: /backend/ });
    await t.throwsAsync(inspectHost(client, 'Not A Key', { ...TIMEOUT, nodes: ['embedded'], shardCount: 16 }), { instanceOf: RangeError });
    // Past the client's own check: the node refuses it too.
    const reply = await client.request(subjects().introspectVerb('embedded', 'hosts'), encode({ bogus: 1 }), TIMEOUT);
    t.true(Buffer.from(reply).includes('bogus'));
  } finally {
    await service.close();
    source.close();
    await node.stop();
    await client.close();
    await server.close();
  }
});

test('introspect - the embedded node lists and inspects its MaasMachines as backend maas', async (t) => {
  const it = await startMaasNode();
  const served = serveEmbedded(it.node.introspection);
  const client = served.client;
  const opts = { ...TIMEOUT, nodes: ['embedded'] };
  try {
    t.true((await it.apply(generateMaasCluster({ controlPlane: 1, workers: 1 }))).ok);
    const keys = (await it.store.list('MaasMachine')).map((m) => `${m.metadata.namespace}/${m.metadata.name}`).sort();
    await waitUntil(async () => (await Promise.all(keys.map((k) => maasReady(it.store, k)))).every(Boolean), 15_000, 'machines ready');
    await waitUntil(async () => (await gather(client, 'hosts', { backend: 'maas', state: 'Deployed' }, opts)).replies[0]?.value.hosts.length === keys.length, 5_000, 'machines listed as Deployed');
    const rows = (await gather(client, 'hosts', { backend: 'maas' }, opts)).replies[0]!.value.hosts;
    t.deepEqual(rows.map((r) => r.key), keys);
    t.true(rows.every((r) => r.kind === 'MaasMachine' && r.poweredOn && r.errorType === ''));
    // Asked as a MaasMachine: no kind is a BareMetalHost, which this node has none of.
    const inspected = (await inspectHost(client, keys[0]!, { ...opts, shardCount: 8, kind: 'MaasMachine' })).value.host;
    t.is(inspected.kind, 'MaasMachine');
    t.is(inspected.state, 'Deployed');
    t.truthy(inspected.spec.providerID);
    t.truthy(inspected.backendRecord);
  } finally {
    await served.close();
    await it.stop();
  }
});

const cluster = natsServerInstalled() ? test.serial : test.skip;

const CLUSTER = { shards: 16, limit: 2, leaseTtlMs: 2_000, heartbeatMs: 200 };

cluster('introspect - two nodes answer over NATS; a killed node is reported missing until it leaves membership', async (t) => {
  await withCluster(t, CLUSTER, async (c) => {
    await c.startNode('a');
    await c.startNode('b');
    const keys = await c.applyHosts(8);
    const opts = { timeoutMs: 2_000 };

    // Both nodes heartbeat; their shards cover all 16 without overlap, their hosts all 8.
    await waitUntil(async () => {
      const nodes = (await listNodes(c.transport)).map((n) => n.node);
      if (nodes.join() !== 'a,b') return false;
      const shards = await gather(c.transport, 'shards', {}, opts);
      const owned = shards.replies.flatMap((r) => r.value.shards.map((s) => s.shard));
      const hosts = await gather(c.transport, 'hosts', {}, opts);
      return shards.replies.length === 2 && owned.length === 16 && new Set(owned).size === 16
        && hosts.replies.reduce((n, r) => n + r.value.hosts.length, 0) === 8;
    }, 60_000, 'two nodes sharing 16 shards and 8 hosts', 100);

    const members = await listNodes(c.transport);
    t.deepEqual(members.map((m) => m.node), ['a', 'b']);
    t.true(members.every((m) => m.lastSeenMs >= 0 && m.lastSeenMs < 5_000 && m.info?.pid !== undefined));

    const info = await gather(c.transport, 'info', {}, opts);
    t.deepEqual(info.missing, []);
    t.deepEqual(info.errors, []);
    t.deepEqual(info.replies.map((r) => r.node), ['a', 'b']);
    t.is(info.replies.reduce((n, r) => n + r.value.shards, 0), 16);
    t.is(info.replies.reduce((n, r) => n + r.value.hosts, 0), 8);
    t.is(info.replies.filter((r) => r.value.broker).length, 1);
    t.true(info.replies.every((r) => r.value.pid !== process.pid && r.value.uptimeMs > 0));

    const hosts = await gather(c.transport, 'hosts', {}, opts);
    const seen = hosts.replies.flatMap((r) => r.value.hosts.map((h) => h.key)).sort();
    t.deepEqual(seen, [...keys].sort());
    t.true(hosts.replies.every((r) => r.value.hosts.every((h) => h.kind === 'BareMetalHost' && h.backend === 'fixture')));

    const actors = await gather(c.transport, 'actors', {}, opts);
    t.is(actors.replies.length, 2);
    t.is(actors.replies.reduce((n, r) => n + r.value.actors.filter((a) => a.kind === 'host').length, 0), 8);

    const capacity = await gather(c.transport, 'capacity', {}, opts);
    t.deepEqual(capacity.errors, []);
    const brokers = capacity.replies.filter((r) => r.value.broker);
    t.is(brokers.length, 1);
    t.true(capacity.replies.filter((r) => !r.value.broker).every((r) => r.value.pools.length === 0));
    t.true(brokers[0]!.value.pools.every((p) => p.limit === 2 && p.inUse.length <= 2));

    // The owner answers inspect; the shards listing says who that is.
    const key = keys[3]!;
    const shards = await gather(c.transport, 'shards', {}, opts);
    const inspected = await inspectHost(c.transport, key, { ...opts, shardCount: 16 });
    const ownerShard = inspected.value.host.shard;
    const owner = shards.replies.find((r) => r.value.shards.some((s) => s.shard === ownerShard))!;
    t.is(inspected.node, owner.node);
    t.is(inspected.value.host.epoch, owner.value.shards.find((s) => s.shard === ownerShard)!.epoch);
    t.is(inspected.value.host.spec.credentialsName, 'bmc');
    await t.throwsAsync(inspectHost(c.transport, 'fleet/nope', { ...opts, shardCount: 16 }), { instanceOf: NotFound });
    // A client guessing another shard count still names the shard the nodes put the host in.
    t.true(members.every((m) => m.info?.shards === '16'), 'each node announces its shard count');
    const guessed = await t.throwsAsync(inspectHost(c.transport, 'fleet/absent', { ...opts, shardCount: 64 }), { instanceOf: NotFound });
    t.regex(guessed.message, new RegExp(`\\(owner of shard ${shardOf('fleet/absent', 16)}\\) knows no BareMetalHost`));
    t.not(shardOf('fleet/absent', 16), shardOf('fleet/absent', 64), 'the two counts put this key in different shards');

    for (const node of ['a', 'b']) {
      for (const bytes of await rawReplies(c.transport, node, key).catch(() => [])) t.false(bytes.includes(BMC_PASSWORD));
    }
    // The non-owner refuses inspect.
    const other = owner.node === 'a' ? 'b' : 'a';
    const refused = await c.transport.request(subjects().introspectVerb(other, 'inspect'), encode({ host: key }), opts);
    t.true(Buffer.from(refused).includes('notOwner'));

    // Any NATS tool finds the nodes by the service protocol ($SRV.*, JSON), then asks one directly.
    const plain = await connect({ servers: c.nats.url, name: 'plain-discovery-client' });
    try {
      const pings: PingResponse[] = [];
      for await (const m of await plain.requestMany('$SRV.PING.metalfleet', new Uint8Array(0), { strategy: 'count', maxMessages: 2, maxWait: 5_000 })) {
        pings.push(PingResponse.parse(m.json()));
      }
      t.deepEqual(pings.map((p) => p.metadata.node).sort(), ['a', 'b']);
      const pingOfA = pings.find((p) => p.metadata.node === 'a')!;
      const info = InfoResponse.parse((await plain.request(`$SRV.INFO.metalfleet.${pingOfA.id}`, new Uint8Array(0), { timeout: 2_000 })).json());
      t.deepEqual(info.endpoints.map((e) => e.name), ['info', 'hosts', 'actors', 'shards', 'capacity', 'inspect', 'clusters']);
      const hostsEndpoint = info.endpoints.find((e) => e.name === 'hosts')!;
      const reply = await plain.request(hostsEndpoint.subject, encode({}), { timeout: 2_000 });
      t.true(Buffer.from(reply.data).includes('BareMetalHost'));
      const stats = StatsResponse.parse((await plain.request(`$SRV.STATS.metalfleet.${pingOfA.id}`, new Uint8Array(0), { timeout: 2_000 })).json());
      t.true(stats.endpoints.find((e) => e.name === 'hosts')!.num_requests >= 1);
      t.false(JSON.stringify([pings, info, stats]).includes(BMC_PASSWORD));
    } finally {
      await plain.close();
    }

    // Killed: its heartbeat stays until the bucket TTL drops it; until then it is named missing.
    await c.killNode('b');
    const after = await gather(c.transport, 'info', {}, opts);
    t.deepEqual(after.replies.map((r) => r.node), ['a']);
    t.deepEqual(after.missing, ['b']);
    // Explicitly asked, it stays missing; from membership it goes away.
    await waitUntil(async () => (await listNodes(c.transport)).every((n) => n.node !== 'b'), 15_000, 'b gone from membership', 100);
    const later = await gather(c.transport, 'shards', {}, opts);
    t.deepEqual(later.missing, []);
    t.deepEqual(later.replies.map((r) => r.node), ['a']);
    await waitUntil(async () => ((await gather(c.transport, 'shards', {}, opts)).replies[0]?.value.shards.length ?? 0) === 16, 30_000, 'a took over all shards', 100);
  });
});
