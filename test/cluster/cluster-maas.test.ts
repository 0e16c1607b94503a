// MaasMachines and MaasClusters in the sharded NATS mode: three `metalfleet node` processes drive a
// MAAS simulator; one is killed with -9 in the middle of the deploys. Every machine still ends
// Deployed, none is allocated twice, no providerID changes, every cluster's DNS record holds its
// control plane, and a paused Cluster is left alone until it is unpaused.
import test from 'ava';
import { shardOf } from '../../src/api/index.ts';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import type { StoredObject } from '../../src/ports/index.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { withCluster } from '../support/cluster.ts';
import { waitUntil } from '../support/wait.ts';

const cluster = natsServerInstalled() ? test.serial : test.skip;

const SHARDS = 16;
const CLUSTERS = ['c0', 'c1', 'c2', 'c3'];
const isSecret = (o: unknown): boolean => (o as { kind?: string }).kind === 'Secret';

function fleet(): { objects: unknown[]; secrets: unknown[] } {
  const all = [
    ...CLUSTERS.flatMap((c) => generateMaasCluster({ namespace: 'capi', cluster: c, controlPlane: 1, workers: 2 })),
    // A paused Cluster: nothing of it may be allocated until it is unpaused.
    ...generateMaasCluster({ namespace: 'capi', cluster: 'paused', controlPlane: 0, workers: 1 }).map((o) => {
      const obj = o as { kind: string; spec?: Record<string, unknown> };
      return obj.kind === 'Cluster' ? { ...obj, spec: { ...obj.spec, paused: true } } : obj;
    }),
  ];
  return { objects: all.filter((o) => !isSecret(o)), secrets: all.filter(isSecret) };
}

const ready = (m: StoredObject): boolean => (m.status as { ready?: boolean } | undefined)?.ready === true;
const clusterOf = (m: StoredObject): string => m.metadata.labels?.['cluster.x-k8s.io/cluster-name'] ?? '';

cluster('cluster maas - machines are sharded by cluster, survive kill -9 of an owner, are deployed once, and a paused Cluster waits', async (t) => {
  const { objects, secrets } = fleet();
  const machines = Array.from({ length: 20 }, (_, i) => ({ hostname: `node-${i}`, zone: i % 2 ? 'az2' : 'az1', cpuCount: 4, memoryMb: 8192 }));
  await withCluster(t, { shards: SHARDS, leaseTtlMs: 3_000, maas: { deployMs: 2_500, releaseMs: 50, machines }, secrets, nodeArgs: ['--limit', '0'] }, async (c) => {
    const sim = c.maas!;
    for (const name of ['a', 'b', 'c']) await c.startNode(name);
    const applied = await c.objects.apply(objects);
    t.true(applied.ok, JSON.stringify(applied.issues));

    // Every providerID is recorded the first time it is seen, and must never change afterwards.
    const providerIds = new Map<string, string>();
    const changed: string[] = [];
    const watch = c.objects.watch((e) => {
      if (e.type !== 'upsert' || e.kind !== 'MaasMachine') return;
      const id = (e.object.spec as { providerID?: string } | undefined)?.providerID;
      if (!id) return;
      const before = providerIds.get(e.key);
      if (before === undefined) providerIds.set(e.key, id);
      else if (before !== id) changed.push(`${e.key}: ${before} -> ${id}`);
    });
    try {
      // Kill the node that owns the most clusters, while machines are deploying.
      await waitUntil(() => sim.machines().some((m) => m.status_name === 'Deploying'), 60_000, 'a machine deploying');
      // Who holds each shard now: the last record of each node and shard says.
      const holding = new Map<string, boolean>();
      for (const r of (await c.ownership()).sort((x, y) => x.at - y.at)) holding.set(`${r.node}/${r.shard}`, r.kind === 'acquired');
      const score = (node: string): number => CLUSTERS.filter((cl) => holding.get(`${node}/${shardOf(`capi/${cl}`, SHARDS)}`) === true).length;
      const victim = ['a', 'b', 'c'].sort((x, y) => score(y) - score(x))[0]!;
      t.log(`killing ${victim}, owner of ${score(victim)} of ${CLUSTERS.length} clusters`);
      await c.killNode(victim);
      const killedAt = Date.now();

      const want = objects.filter((o) => (o as { kind: string }).kind === 'MaasMachine').length - 1;
      await waitUntil(async () => (await c.objects.list('MaasMachine')).filter((m) => clusterOf(m) !== 'paused' && ready(m)).length === want, 120_000, 'every unpaused MaasMachine ready');
      t.log(`all ready ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill`);

      const mms = await c.objects.list('MaasMachine');
      // The paused cluster's machine was never allocated, nor given a providerID.
      const pausedMachine = mms.find((m) => clusterOf(m) === 'paused')!;
      t.falsy((pausedMachine.spec as { providerID?: string }).providerID);
      t.false(ready(pausedMachine));
      // Each MaasMachine has its own MAAS machine: none allocated twice, none swapped.
      const systemIds = mms.filter((m) => clusterOf(m) !== 'paused').map((m) => (m.spec as { providerID?: string }).providerID);
      t.is(new Set(systemIds).size, want);
      t.deepEqual(changed, []);
      const allocated = sim.machines().filter((m) => m.status_name === 'Deployed' || m.status_name === 'Deploying' || m.status_name === 'Allocated');
      t.is(allocated.length, want, 'as many MAAS machines taken as MaasMachines');
      t.is(sim.counts().byRoute['POST machines/ op=allocate'] ?? 0, want, 'one allocate per MaasMachine, across the failover');

      // Each cluster's DNS record holds exactly its control plane's address.
      for (const cl of CLUSTERS) {
        const cp = mms.find((m) => clusterOf(m) === cl && m.metadata.labels?.['cluster.x-k8s.io/control-plane'] !== undefined)!;
        const ip = ((cp.status as { addresses?: Array<{ type: string; address: string }> }).addresses ?? []).find((a) => a.type === 'InternalIP')?.address;
        t.truthy(ip, `${cl}: the control plane has an address`);
        await waitUntil(() => sim.dnsResources().some((r) => r.fqdn.startsWith(`${cl}-`) && r.ips.length === 1 && r.ips[0] === ip), 30_000, `DNS of ${cl}`);
      }

      // Unpaused, the waiting cluster goes ahead.
      const pausedCluster = (await c.objects.get('Cluster', 'capi/paused'))!;
      t.true((await c.objects.apply([{ ...pausedCluster, spec: { ...pausedCluster.spec, paused: false } }])).ok);
      await waitUntil(async () => ready((await c.objects.get('MaasMachine', pausedMachine.metadata.namespace + '/' + pausedMachine.metadata.name))!), 60_000, 'the unpaused machine ready');
    } finally {
      watch();
    }
  }, 300_000);
});
