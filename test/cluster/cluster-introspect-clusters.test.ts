// The `clusters` introspection verb: the embedded node with the MAAS simulator answers for its
// MaasCluster over the in-memory bus (DNS name, the record's addresses as MAAS holds them, each
// machine's MAAS state and whether the record holds it), with no MAAS API key in the reply; the
// schema refuses what is not a reply; a node with many clusters answers them in pages; over NATS
// each cluster is answered by the node owning its shard.
import test from 'ava';
import { call, createMemoryBus, encode, subjects } from '../../src/bus/index.ts';
import { ClustersReply, ClustersRequest, type ClusterRow } from '../../src/bus/messages/introspect.ts';
import { gather, serveIntrospection } from '../../src/cluster/introspect/index.ts';
import type { IntrospectionSource } from '../../src/cluster/introspect/index.ts';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import { shardOf } from '../../src/api/index.ts';
import { withCluster } from '../support/cluster.ts';
import { maasReady, startMaasNode } from '../support/maas-node.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { waitUntil } from '../support/wait.ts';
import { serveEmbedded } from '../support/embedded-introspection.ts';

const TIMEOUT = { timeoutMs: 2_000 };

function row(key: string, extra: Partial<ClusterRow> = {}): ClusterRow {
  return {
    key, cluster: key.split('/')[1] ?? key, shard: 3, phase: 'active', ready: true, failureDomains: ['az1'], dnsName: 'c1-abcdef.maas',
    addresses: ['10.0.0.2'], addressesSeenMs: 120, machines: [{ key: 'capi/c1-cp-0', machineState: 'Deployed', controlPlane: true, address: '10.0.0.2', dnsAttached: true }],
    conditions: [{ type: 'Ready', status: 'True', reason: '' }], lastError: null, waiting: null, ...extra,
  };
}

test('clusters schema - a reply row carries the DNS name, the record\'s addresses and each machine\'s MAAS state; malformed rows and unknown request fields are refused', (t) => {
  t.true(ClustersReply.safeParse({ node: 'a', clusters: [row('capi/c1')] }).success);
  t.true(ClustersReply.safeParse({ node: 'a', clusters: [row('capi/c1', { dnsName: null, addresses: [], addressesSeenMs: null })], next: 'capi/c1' }).success);
  t.false(ClustersReply.safeParse({ node: 'a', clusters: [{ ...row('capi/c1'), addresses: undefined }] }).success, 'addresses are required');
  t.false(ClustersReply.safeParse({ node: 'a', clusters: [row('capi/c1', { conditions: [{ type: 'Ready', status: 'Maybe' as 'True', reason: '' }] })] }).success, 'a condition status is True, False or Unknown');
  t.false(ClustersReply.safeParse({ node: 'a', clusters: [row('capi/c1', { addressesSeenMs: -1 })] }).success, 'durations are not negative');
  t.true(ClustersRequest.safeParse({}).success);
  t.false(ClustersRequest.safeParse({ cluster: 'c1' }).success, 'unknown request fields are refused');
});

test('clusters - the embedded node answers for its MaasCluster over the in-memory bus: DNS name, the record\'s addresses as MAAS holds them, machines with their MAAS state, and no API key', async (t) => {
  const it = await startMaasNode();
  const served = serveEmbedded(it.node.introspection);
  const client = served.client;
  const opts = { ...TIMEOUT, nodes: ['embedded'] };
  try {
    t.true((await it.apply(generateMaasCluster({ controlPlane: 2, workers: 1 }))).ok);
    const keys = (await it.store.list('MaasMachine')).map((m) => `${m.metadata.namespace}/${m.metadata.name}`).sort();
    await waitUntil(async () => (await Promise.all(keys.map((k) => maasReady(it.store, k)))).every(Boolean), 20_000, 'machines ready');
    // The record in MAAS holds both control planes once the cluster actor has published them.
    await waitUntil(async () => {
      const c = (await gather(client, 'clusters', {}, opts)).replies[0]?.value.clusters[0];
      return c !== undefined && c.addresses.length === 2 && c.ready && c.machines.every((m) => m.machineState === 'Deployed');
    }, 10_000, 'the cluster ready with both control planes in its record');

    const gathered = await gather(client, 'clusters', {}, opts);
    t.deepEqual(gathered.errors, []);
    const clusters = gathered.replies[0]!.value.clusters;
    t.is(clusters.length, 1);
    const c = clusters[0]!;
    const record = it.sim.dnsResources();
    t.is(record.length, 1);
    t.is(c.key, 'capi/demo');
    t.is(c.cluster, 'demo');
    t.is(c.phase, 'active');
    t.regex(c.dnsName ?? '', /^demo-[0-9a-f]{6}\.maas$/);
    t.is(c.dnsName, record[0]!.fqdn, 'the DNS name is the record\'s in MAAS');
    t.deepEqual([...c.addresses].sort(), [...record[0]!.ips].sort(), 'the addresses are the record\'s ip_addresses in MAAS');
    t.deepEqual(c.failureDomains, ['az1', 'az2']);
    t.not(c.addressesSeenMs, null);
    t.deepEqual(c.machines.map((m) => m.key), keys);
    for (const m of c.machines) {
      t.is(m.machineState, 'Deployed', m.key);
      t.is(m.dnsAttached, m.controlPlane, `${m.key}: a control plane is in the record, a worker is not`);
      t.truthy(m.address, m.key);
    }
    t.deepEqual(c.machines.filter((m) => m.controlPlane).map((m) => m.address).sort(), [...c.addresses].sort());
    t.true(c.conditions.some((x) => x.type === 'Ready' || x.type === 'DNSAttached'), JSON.stringify(c.conditions));
    t.is(c.lastError, null);

    // No secret in the raw bytes of the reply: neither MAAS API key (admin or user) nor a part of one.
    const raw = Buffer.from(await client.request(subjects().introspectVerb('embedded', 'clusters'), encode({}), TIMEOUT)).toString('latin1');
    t.true(raw.includes(c.dnsName ?? '\u0000'), 'the raw reply is the one read above');
    for (const key of [it.sim.adminKey, it.sim.userKey]) {
      for (const part of key.split(':')) t.false(raw.includes(part), 'a MAAS API key part in the clusters reply');
    }
  } finally {
    await served.close();
    await it.stop();
  }
});

test('clusters - a node with more clusters than fit one message answers them in pages, and gather follows them', async (t) => {
  // ~3 KB a row: 600 rows are ~1.8 MB, over the 1 MiB a NATS message may hold.
  const rows = Array.from({ length: 600 }, (_, i) => row(`capi/c-${String(i).padStart(4, '0')}`, { lastError: 'x'.repeat(3_000) }));
  const source = { clusters: async () => [...rows].reverse() } as unknown as IntrospectionSource;
  const bus = createMemoryBus({ maxPayload: 1024 * 1024 });
  const server = bus.connect('n1');
  const client = bus.connect('cli');
  const service = serveIntrospection(server, source, { node: 'n1' });
  try {
    // One request gets one page, under the limit, that says where the next begins.
    const page = await call(client, subjects().introspectVerb('n1', 'clusters'), {}, ClustersReply, TIMEOUT);
    t.true(page.clusters.length > 0 && page.clusters.length < rows.length, `${page.clusters.length} rows in the first page`);
    t.is(page.next, page.clusters.at(-1)?.key);
    const gathered = await gather(client, 'clusters', {}, { ...TIMEOUT, nodes: ['n1'] });
    t.deepEqual(gathered.errors, []);
    t.deepEqual(gathered.replies[0]!.value.clusters.map((c) => c.key), rows.map((r) => r.key), 'every cluster once, in key order');
  } finally {
    await service.close();
    await client.close();
    await server.close();
  }
});

const nats = natsServerInstalled() ? test.serial : test.skip;

nats('clusters - over NATS each MaasCluster is answered once, by the node owning its shard, with the DNS record MAAS holds', async (t) => {
  const all = ['c0', 'c1', 'c2'].flatMap((cl) => generateMaasCluster({ namespace: 'capi', cluster: cl, controlPlane: 1, workers: 1 }));
  const isSecret = (o: unknown): boolean => (o as { kind?: string }).kind === 'Secret';
  await withCluster(t, { shards: 8, leaseTtlMs: 3_000, maas: { deployMs: 100, releaseMs: 50 }, secrets: all.filter(isSecret) }, async (c) => {
    await Promise.all([c.startNode('a'), c.startNode('b')]);
    const applied = await c.objects.apply(all.filter((o) => !isSecret(o)));
    t.true(applied.ok, JSON.stringify(applied.issues));
    const opts = { timeoutMs: 2_000 };
    const settled = async (): Promise<boolean> => {
      const g = await gather(c.transport, 'clusters', {}, opts);
      const rows = g.replies.flatMap((r) => r.value.clusters);
      return g.replies.length === 2 && rows.length === 3 && rows.every((r) => r.addresses.length === 1 && r.machines.every((m) => m.machineState === 'Deployed'));
    };
    await waitUntil(settled, 90_000, 'three clusters, each with its control plane in its record', 200);

    const [clusters, shards] = await Promise.all([gather(c.transport, 'clusters', {}, opts), gather(c.transport, 'shards', {}, opts)]);
    const owner = new Map(shards.replies.flatMap((r) => r.value.shards.map((s) => [s.shard, r.node] as const)));
    const rows = clusters.replies.flatMap((r) => r.value.clusters.map((cl) => ({ ...cl, node: r.node })));
    t.deepEqual(rows.map((r) => r.key).sort(), ['capi/c0', 'capi/c1', 'capi/c2'], 'each cluster once');
    const records = c.maas!.dnsResources();
    for (const r of rows) {
      t.is(r.shard, shardOf(`capi/${r.cluster}`, 8), r.key);
      t.is(owner.get(r.shard), r.node, `${r.key} is answered by the owner of shard ${r.shard}`);
      const record = records.find((x) => x.fqdn === r.dnsName);
      t.truthy(record, `${r.key}: ${r.dnsName ?? 'no name'} is a record in MAAS`);
      t.deepEqual(r.addresses, record?.ips, `${r.key}: the addresses are the record's`);
      t.deepEqual(r.machines.filter((m) => m.dnsAttached).map((m) => m.address ?? ''), r.addresses, `${r.key}: the control plane is the machine in the record`);
    }
    const raw = JSON.stringify(clusters);
    for (const part of c.maas!.adminKey.split(':')) t.false(raw.includes(part), 'a MAAS API key part in a clusters reply');
  });
});
