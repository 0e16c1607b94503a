// `metalfleet hosts` right after a node was killed: its shard leases stand until their TTL, so no
// other node drives its hosts yet, and the listing (each node reports the hosts its actors drive)
// left them out until their shards moved. They are now listed as an answering node's store last
// had them, with no node, and a warning says so.
import test from 'ava';
import { clustersView, hostsView, inspectView, sampleTop } from '../../src/cli/introspect/index.ts';
import { hostDetail } from '../../src/ui/host-detail.ts';
import { samplePicture } from '../../src/ui/picture.ts';
import type { ViewOptions } from '../../src/cli/introspect/index.ts';
import { withCluster } from '../support/cluster.ts';
import { maasKilledNodeFleet } from '../support/maas-killed-node-fleet.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { waitUntil } from '../support/wait.ts';

const cluster = natsServerInstalled() ? test.serial : test.skip;

type Listed = {
  replies: Array<{ node: string; value: { hosts: Array<{ key: string; kind: string }> } }>;
  missing: string[];
  stored?: { from: string; hosts: Array<{ key: string; kind: string; state: string; stored?: boolean }> };
};

cluster('a node killed a moment ago: hosts still lists every host, its own as stored with no node, and says so', async (t) => {
  // A lease long enough that the listing is asked well inside it.
  await withCluster(t, { shards: 32, leaseTtlMs: 30_000 }, async (c) => {
    const keys = await c.applyHosts(24);
    await c.startNode('a');
    await c.startNode('b');
    const options: ViewOptions = { format: 'json', width: 200, timeoutMs: 2_000, natsUrl: c.natsUrls.join(',') };
    const list = async (): Promise<Listed> => JSON.parse((await hostsView(c.transport, {}, options)).stdout) as Listed;
    const driven = (l: Listed, node: string): string[] => (l.replies.find((r) => r.node === node)?.value.hosts ?? []).map((h) => h.key).sort();
    await waitUntil(async () => [...(await c.statesOf(keys)).values()].every((s) => s === 'provisioned'), 120_000, 'every host provisioned', 200);
    let before: Listed = { replies: [], missing: [] };
    await waitUntil(async () => {
      before = await list();
      return driven(before, 'a').length > 0 && driven(before, 'b').length > 0 && driven(before, 'a').length + driven(before, 'b').length === keys.length;
    }, 30_000, 'both nodes drive hosts', 200);
    const ofB = driven(before, 'b');

    await c.killNode('b');
    const after = await list();
    t.deepEqual(driven(after, 'a'), driven(before, 'a'), 'a still drives its own');
    t.is(after.stored?.from, 'a');
    t.deepEqual(after.stored?.hosts.map((h) => h.key).sort(), ofB, 'b\'s hosts are listed from a\'s store');
    t.true(after.stored?.hosts.every((h) => h.stored === true && h.state === 'provisioned'), 'as last written: provisioned');

    const table = await hostsView(c.transport, {}, { ...options, format: 'table' });
    const rows = table.stdout.split('\n').filter((l) => l.startsWith('fleet/'));
    t.is(rows.length, keys.length, 'every host has a row');
    const nodeColumn = (row: string): string | undefined => row.split(/\s+/)[7];
    t.deepEqual(rows.filter((r) => nodeColumn(r) === '-').map((r) => r.split(/\s+/)[0]).sort(), ofB);
    t.regex(table.stderr.join('\n'), new RegExp(`warning: ${ofB.length} host\\(s\\) on shards no answering node holds are shown as a's store last had them`));

    // The page's picture too: every host, b's with no node, and a line saying why.
    const picture = await samplePicture(c.transport, { timeoutMs: 2_000 });
    t.is(picture.hostsTotal, keys.length);
    t.deepEqual(picture.hosts.filter((h) => h.node === '-').map((h) => h.key).sort(), ofB);
    t.true(picture.problems.some((p) => p.startsWith(`${ofB.length} host(s) on shards no answering node holds`)), picture.problems.join('; '));

    // inspect of one of b's hosts: as a's store last had it, saying no node drives it now.
    const one = ofB[0]!;
    const inspected = await inspectView(c.transport, { host: one, shardCount: 32 }, { ...options, format: 'table' });
    t.regex(inspected.stdout, /^state: +provisioned \(status last written /m);
    t.regex(inspected.stdout, /^owner: +none answering for shard \d+: shown as node a's store last had it/m);
    t.regex(inspected.stdout, /^ {2}bmcAddress: /m, 'the spec is shown');
    t.false(inspected.stdout.includes('password'), 'no credential');
    const json = JSON.parse((await inspectView(c.transport, { host: one, shardCount: 32 }, options)).stdout) as { node: string; value: { host: { stored?: boolean; key: string } } };
    t.deepEqual([json.node, json.value.host.key, json.value.host.stored], ['a', one, true]);
    const detail = await hostDetail(c.transport, one, { timeoutMs: 2_000, shardCount: 32 });
    t.true(detail.ok && detail.host.stored === true && detail.host.node === 'a', JSON.stringify(detail).slice(0, 300));
    // A host that does not exist anywhere is still no host at all.
    await t.throwsAsync(inspectView(c.transport, { host: 'fleet/nowhere', shardCount: 32 }, options));

    // And top's: every host counted, in its state.
    const top = await sampleTop(c.transport, { timeoutMs: 2_000 });
    t.is(top.hostsTotal, keys.length);
    t.is(top.provisioned, keys.length);
  }, 180_000);
});

cluster('a node killed a moment ago: its MaasMachines are listed from a live node\'s store too, in their clusters\' shards', async (t) => {
  const fleet = maasKilledNodeFleet();
  await withCluster(t, fleet.options, async (c) => {
    await c.startNode('a');
    await c.startNode('b');
    t.true((await c.objects.apply(fleet.objects)).ok);
    const options: ViewOptions = { format: 'json', width: 200, timeoutMs: 2_000, natsUrl: c.natsUrls.join(',') };
    const list = async (): Promise<Listed> => JSON.parse((await hostsView(c.transport, {}, options)).stdout) as Listed;
    const deployed = (l: Listed, node: string): string[] => (l.replies.find((r) => r.node === node)?.value.hosts ?? [])
      .filter((h) => h.kind === 'MaasMachine' && (h as { state?: string }).state === 'Deployed').map((h) => h.key).sort();
    let before: Listed = { replies: [], missing: [] };
    await waitUntil(async () => {
      before = await list();
      return deployed(before, 'a').length + deployed(before, 'b').length === 8;
    }, 120_000, 'all eight MaasMachines Deployed', 200);
    // The node driving more of them is killed (each drives at least one cluster of 16 shards, or the other drives them all).
    const victim = deployed(before, 'a').length >= deployed(before, 'b').length ? 'a' : 'b';
    const survivor = victim === 'a' ? 'b' : 'a';
    type ClustersListed = { replies: Array<{ node: string; value: { clusters: Array<{ key: string }> } }>; stored?: { from: string; clusters: Array<{ key: string; phase: string; stored?: boolean; machines: Array<{ machineState: string }> }> } };
    const listClusters = async (): Promise<ClustersListed> => JSON.parse((await clustersView(c.transport, options)).stdout) as ClustersListed;
    const clustersOf = (l: ClustersListed, node: string): string[] => (l.replies.find((r) => r.node === node)?.value.clusters ?? []).map((x) => x.key).sort();
    const clustersBefore = await listClusters();
    t.is(clustersOf(clustersBefore, 'a').length + clustersOf(clustersBefore, 'b').length, 4, 'four MaasClusters driven before');
    await c.killNode(victim);
    const after = await list();
    t.is(after.stored?.from, survivor);
    const stored = (after.stored?.hosts ?? []).filter((h) => h.kind === 'MaasMachine');
    t.deepEqual(stored.map((h) => h.key).sort(), deployed(before, victim));
    t.true(stored.every((h) => h.stored === true && h.state === 'Deployed'));
    // Its age is its newest condition's, not none.
    t.true(stored.every((h) => { const ms = (h as { stateSinceMs?: number }).stateSinceMs ?? 0; return ms > 0 && ms < 180_000; }), JSON.stringify(stored));

    // Their MaasClusters too, with their machines: listed by `clusters` and on the page.
    const clustersAfter = await listClusters();
    t.deepEqual(clustersOf(clustersAfter, survivor), clustersOf(clustersBefore, survivor), 'the survivor still drives its own');
    t.is(clustersAfter.stored?.from, survivor);
    t.deepEqual(clustersAfter.stored?.clusters.map((x) => x.key).sort(), clustersOf(clustersBefore, victim), 'the killed node\'s MaasClusters from the survivor\'s store');
    t.true(clustersAfter.stored?.clusters.every((x) => x.stored === true && x.phase === 'stored' && x.machines.length === 2 && x.machines.every((m) => m.machineState === 'Deployed')), JSON.stringify(clustersAfter.stored));
    const clustersTable = await clustersView(c.transport, { ...options, format: 'table' });
    t.regex(clustersTable.stderr.join('\n'), new RegExp(`warning: ${clustersOf(clustersBefore, victim).length} MaasCluster\\(s\\) on shards no answering node holds are shown as ${survivor}'s store last had them`));
    t.false(clustersTable.stderr.join('\n').includes('had no owner when asked'), 'no ownerless warning once they are shown');
    const picture = await samplePicture(c.transport, { timeoutMs: 2_000 });
    t.deepEqual(picture.clusters.map((x) => x.key).sort(), [...clustersOf(clustersBefore, 'a'), ...clustersOf(clustersBefore, 'b')].sort(), 'the page shows all four');
    t.deepEqual(picture.clusters.filter((x) => x.node === '-').map((x) => x.key).sort(), clustersOf(clustersBefore, victim));
    t.true(picture.problems.some((p) => p.includes('MaasCluster(s) on shards no answering node holds')), picture.problems.join('; '));

    // inspect of one of them: as the survivor's store last had it, saying no node drives it now.
    const one = deployed(before, victim)[0]!;
    const inspected = await inspectView(c.transport, { host: one, kind: 'MaasMachine', shardCount: 16 }, { ...options, format: 'table' });
    t.regex(inspected.stdout, /^state: +Deployed \(its newest condition changed /m);
    t.regex(inspected.stdout, new RegExp(`^owner: +none answering for shard \\d+: shown as node ${survivor}'s store last had it`, 'm'));
    t.regex(inspected.stdout, /^ {2}imageUrl: +ubuntu\//m, 'the spec is shown');
    const json = JSON.parse((await inspectView(c.transport, { host: one, kind: 'MaasMachine', shardCount: 16 }, options)).stdout) as { node: string; value: { host: { stored?: boolean; kind: string; status: { machineState?: string } } } };
    t.deepEqual([json.node, json.value.host.kind, json.value.host.stored, json.value.host.status.machineState], [survivor, 'MaasMachine', true, 'Deployed']);
    const detail = await hostDetail(c.transport, one, { timeoutMs: 2_000, shardCount: 16, kind: 'MaasMachine' });
    t.true(detail.ok && detail.host.stored === true && detail.host.node === survivor, JSON.stringify(detail).slice(0, 300));
    // One of the survivor's own is driven, as before; one that does not exist is still none.
    const own = deployed(before, survivor)[0];
    if (own) t.not((JSON.parse((await inspectView(c.transport, { host: own, kind: 'MaasMachine', shardCount: 16 }, options)).stdout) as { value: { host: { stored?: boolean } } }).value.host.stored, true);
    const none = await t.throwsAsync(inspectView(c.transport, { host: 'capi/nowhere', kind: 'MaasMachine', shardCount: 16 }, options));
    t.regex(none?.message ?? '', /no node \(.*\) drives a MaasMachine of that name/);
  }, 180_000);
});
