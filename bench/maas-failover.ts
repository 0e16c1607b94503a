// kill -9 of one node mid-deploy, MAAS side: `--nodes` `metalfleet node` processes drive one MAAS
// simulator for `--clusters` Cluster API clusters of `--machines-per-cluster` MaasMachines each
// (`--control-plane` of them control plane). Once some MAAS machines are Deploying (and `--kill-at`
// of the MaasMachines have one), the node owning the most clusters dies. Measured: how long until
// every shard it held that carries a cluster is owned by a survivor (the nodes' ownership logs, as
// in bench/failover.ts), then, once every MaasMachine is ready: MAAS machines taken beyond one
// per MaasMachine, providerIDs that changed, and clusters whose DNS record is not exactly their
// control plane's InternalIPs. Extra fields say where a surplus comes from: MAAS machines held by
// no MaasMachine (maasMachinesOrphaned) or by two (maasMachinesShared), and a cluster's records
// beyond its one (dnsRecordsExtra).
import { shardOf } from '../src/api/index.ts';
import { generateMaasCluster } from '../src/cli/demo/maas-fleet.ts';
import type { StoredObject } from '../src/ports/index.ts';
import { startCluster } from '../test/support/cluster.ts';
import { currentOwners, pollUntil, progress, round } from './cluster-support.ts';
import { BenchFlagError, intFlag } from './support.ts';

const NAMESPACE = 'capi';
const CLUSTER_LABEL = 'cluster.x-k8s.io/cluster-name';
const CONTROL_PLANE_LABEL = 'cluster.x-k8s.io/control-plane';
// What the simulator calls a machine someone holds (allocated, or on its way to deployed).
const TAKEN = new Set(['Allocated', 'Deploying', 'Deployed']);

const kindOf = (o: unknown): string => (o as { kind?: string }).kind ?? '';
const isReady = (m: StoredObject): boolean => (m.status as { ready?: boolean } | undefined)?.ready === true;
const clusterOf = (m: StoredObject): string => m.metadata.labels?.[CLUSTER_LABEL] ?? '';
const providerIdOf = (m: StoredObject): string | undefined => (m.spec as { providerID?: string } | undefined)?.providerID;
const keyOf = (m: StoredObject): string => `${m.metadata.namespace}/${m.metadata.name}`;

export async function run(flags: Record<string, string>): Promise<object> {
  const nodeCount = intFlag(flags, 'nodes', 3);
  const clusterCount = intFlag(flags, 'clusters', 30);
  const perCluster = intFlag(flags, 'machines-per-cluster', 10);
  const controlPlane = intFlag(flags, 'control-plane', 3);
  const leaseTtlMs = intFlag(flags, 'lease-ttl', 5_000);
  const shards = intFlag(flags, 'shards', 256);
  // Long enough that the fleet is still deploying when the kill comes: with no slot limit all
  // machines are allocated within seconds, and the nodes look at a deploying machine every 10 s.
  const deployMs = intFlag(flags, 'deploy-ms', 20_000);
  const killAt = intFlag(flags, 'kill-at', 0.3);
  // 0 = unlimited, as in test/cluster/cluster-maas.test.ts: at the node default of 20 slots and a
  // 10 s deploying poll, 300 machines would take minutes of waves.
  const limit = intFlag(flags, 'limit', 0);
  if (nodeCount < 2) throw new BenchFlagError(`--nodes ${nodeCount}: a failover needs at least 2 nodes`);
  if (controlPlane < 1 || controlPlane > perCluster) throw new BenchFlagError(`--control-plane ${controlPlane}: expected 1 to --machines-per-cluster (${perCluster}); the DNS record needs a control plane`);

  const clusters = Array.from({ length: clusterCount }, (_, i) => `mc-${String(i).padStart(3, '0')}`);
  const all = clusters.flatMap((cluster) => generateMaasCluster({ namespace: NAMESPACE, cluster, controlPlane, workers: perCluster - controlPlane }));
  const secrets = all.filter((o) => kindOf(o) === 'Secret');
  const objects = all.filter((o) => kindOf(o) !== 'Secret');
  const machineCount = objects.filter((o) => kindOf(o) === 'MaasMachine').length;

  // More MAAS machines than MaasMachines in each zone their Machines ask for (az1 gets the odd
  // one of each cluster's control plane and workers), so a second allocation would find one.
  const wantByZone = new Map<string, number>();
  for (const o of objects) {
    if (kindOf(o) !== 'Machine') continue;
    const zone = (o as { spec: { failureDomain?: string } }).spec.failureDomain ?? 'az1';
    wantByZone.set(zone, (wantByZone.get(zone) ?? 0) + 1);
  }
  const simMachines = [...wantByZone].flatMap(([zone, n]) => Array.from({ length: n + Math.max(5, Math.ceil(n * 0.1)) }, (_, i) => ({
    hostname: `${zone}-node-${i}`, zone, cpuCount: 4, memoryMb: 8192,
  })));

  const c = await startCluster({
    shards, leaseTtlMs, secrets,
    maas: { deployMs, releaseMs: 50, machines: simMachines },
    nodeArgs: ['--limit', String(limit)],
  });
  try {
    const sim = c.maas!;
    // Every providerID as first seen; a later different one is a swap.
    const firstProviderId = new Map<string, string>();
    const changed = new Set<string>();
    const unwatch = c.objects.watch((e) => {
      if (e.type !== 'upsert' || e.kind !== 'MaasMachine') return;
      const id = providerIdOf(e.object);
      if (!id) return;
      const before = firstProviderId.get(e.key);
      if (before === undefined) firstProviderId.set(e.key, id);
      else if (before !== id) {
        changed.add(e.key);
        progress(`providerID of ${e.key} changed: ${before} -> ${id}`);
      }
    });
    try {
      progress(`applying ${clusterCount} clusters, ${machineCount} MaasMachines (${objects.length} objects); MAAS has ${simMachines.length} machines`);
      const applied = await c.objects.apply(objects);
      if (!applied.ok) throw new Error(`apply failed: ${JSON.stringify(applied).slice(0, 500)}`);

      let reportedAt = 0;
      const simStates = (): Map<string, number> => {
        const byState = new Map<string, number>();
        for (const m of sim.machines()) byState.set(m.status_name, (byState.get(m.status_name) ?? 0) + 1);
        if (Date.now() - reportedAt > 5_000) {
          reportedAt = Date.now();
          progress(`MAAS: ${[...byState].map(([s, n]) => `${s} ${n}`).join(', ')}`);
        }
        return byState;
      };

      const names = Array.from({ length: nodeCount }, (_, i) => String.fromCharCode(97 + i));
      const start = performance.now();
      progress(`starting nodes ${names.join(', ')}`);
      // All at once, as a deployment rolls out: a node joining later would make the others hand
      // clusters over mid-step, which is not what this bench measures.
      await Promise.all(names.map((name) => c.startNode(name)));

      const threshold = Math.ceil(machineCount * killAt);
      await pollUntil(() => {
        const s = simStates();
        const deploying = s.get('Deploying') ?? 0;
        return deploying > 0 && deploying + (s.get('Deployed') ?? 0) >= threshold;
      }, 150_000, `${threshold} MAAS machines deploying or deployed`, 50);
      const atKill = simStates();
      if ((atKill.get('Deployed') ?? 0) >= machineCount) throw new Error(`every machine was Deployed before the kill; raise --deploy-ms (${deployMs})`);

      const owners = currentOwners(await c.ownership());
      const clusterShard = new Map(clusters.map((cl) => [cl, shardOf(`${NAMESPACE}/${cl}`, shards)]));
      const owned = (node: string): number => clusters.filter((cl) => owners.get(clusterShard.get(cl)!) === node).length;
      const victim = [...names].sort((x, y) => owned(y) - owned(x))[0]!;
      progress(`MAAS ${[...atKill].map(([s, n]) => `${s} ${n}`).join(', ')}: kill -9 ${victim}, owner of ${owned(victim)} of ${clusterCount} clusters (${names.map((n) => `${n} ${owned(n)}`).join(', ')})`);
      await c.killNode(victim);
      const killedAt = c.nodes.get(victim)?.killedAt ?? 0;

      // The harness closes each shard the killed node still held with a `lost` record at killedAt;
      // only those carrying a cluster matter here.
      const clusterShards = new Set(clusterShard.values());
      const held = new Set((await c.ownership()).filter((r) => r.node === victim && r.kind === 'lost' && r.at === killedAt && clusterShards.has(r.shard)).map((r) => r.shard));
      const retakenAt = async (): Promise<Map<number, number>> => {
        const out = new Map<number, number>();
        for (const r of await c.ownership()) {
          if (r.kind !== 'acquired' || r.node === victim || r.at < killedAt || !held.has(r.shard)) continue;
          out.set(r.shard, Math.min(out.get(r.shard) ?? Number.POSITIVE_INFINITY, r.at));
        }
        return out;
      };
      await pollUntil(async () => (await retakenAt()).size === held.size, 60_000, `the ${held.size} cluster shards of ${victim} owned again`, 50);
      const recoveryMs = Math.max(0, ...[...(await retakenAt()).values()].map((at) => at - killedAt));
      progress(`${held.size} cluster shards of ${victim} owned again after ${Math.round(recoveryMs)} ms`);
      const moved = new Set(clusters.filter((cl) => held.has(clusterShard.get(cl)!)));

      let allReady = true;
      try {
        await pollUntil(async () => {
          simStates();
          return (await c.objects.list('MaasMachine')).filter(isReady).length === machineCount;
        }, 150_000, `all ${machineCount} MaasMachines ready`, 250);
      } catch (error) {
        allReady = false;
        progress(`${error instanceof Error ? error.message : String(error)} (${(await c.objects.list('MaasMachine')).filter(isReady).length} are)`);
      }
      const seconds = (performance.now() - start) / 1000;

      const mms = await c.objects.list('MaasMachine');
      // Each MaasMachine on its own MAAS machine: its providerID ends in a system_id no other has.
      const systemIds = new Set(sim.machines().map((m) => m.system_id));
      const holderOf = new Map<string, string[]>();
      for (const m of mms) {
        const id = providerIdOf(m);
        const systemId = id?.split('/').pop();
        if (!systemId || !systemIds.has(systemId)) continue;
        holderOf.set(systemId, [...(holderOf.get(systemId) ?? []), keyOf(m)]);
      }
      const shared = [...holderOf].filter(([, holders]) => holders.length > 1);
      for (const [systemId, holders] of shared.slice(0, 5)) progress(`MAAS machine ${systemId} is the providerID of ${holders.join(', ')}`);
      const withoutMachine = mms.filter((m) => !systemIds.has(providerIdOf(m)?.split('/').pop() ?? '')).map(keyOf);
      if (withoutMachine.length > 0) progress(`MaasMachines with no MAAS machine of theirs: ${withoutMachine.slice(0, 5).join(', ')}${withoutMachine.length > 5 ? ', …' : ''}`);

      const allocateCalls = sim.counts().byRoute['POST machines/ op=allocate'] ?? 0;
      const taken = sim.machines().filter((m) => TAKEN.has(m.status_name)).length;
      const extra = Math.max(allocateCalls, taken) - machineCount;
      // Held in MAAS but no MaasMachine's providerID: allocated by an owner that died before it
      // wrote the providerID, then allocated again by the next owner.
      const orphaned = sim.machines().filter((m) => TAKEN.has(m.status_name) && !holderOf.has(m.system_id));
      if (extra > 0) progress(`${allocateCalls} allocate calls, ${taken} MAAS machines held, for ${machineCount} MaasMachines; held by none: ${orphaned.slice(0, 5).map((m) => `${m.hostname} (${m.status_name})`).join(', ')}${orphaned.length > 5 ? ', …' : ''}`);

      // Each cluster: one record "<cluster>-xxxxxx.<domain>", the one its MaasCluster names, holding
      // exactly its control plane's InternalIPs. A second record of a cluster is a leak (counted
      // wrong, and in dnsRecordsExtra): an owner that died between creating a record and writing
      // its name to status leaves it behind, and the next owner picks a new name.
      const records = sim.dnsResources();
      const maasClusters = new Map((await c.objects.list('MaasCluster')).map((mc) => [mc.metadata.name, mc]));
      const dnsWrong: string[] = [];
      let dnsExtra = 0;
      for (const cl of clusters) {
        const want = mms.filter((m) => clusterOf(m) === cl && m.metadata.labels?.[CONTROL_PLANE_LABEL] !== undefined)
          .flatMap((m) => ((m.status as { addresses?: Array<{ type: string; address: string }> } | undefined)?.addresses ?? []).filter((a) => a.type === 'InternalIP').map((a) => a.address))
          .sort();
        const named = (maasClusters.get(cl)?.status as { network?: { dnsName?: string } } | undefined)?.network?.dnsName;
        const mine = records.filter((r) => new RegExp(`^${cl}-[0-9a-z]{6}\\.`).test(r.fqdn));
        dnsExtra += Math.max(0, mine.length - 1);
        const record = mine.find((r) => r.fqdn === named);
        const ips = record ? [...record.ips].sort() : [];
        if (mine.length !== 1 || !record || want.length !== controlPlane || ips.join(',') !== want.join(',')) {
          dnsWrong.push(cl);
          if (dnsWrong.length <= 5) progress(`DNS of ${cl} (status names ${named ?? 'none'}): ${mine.map((r) => `${r.fqdn} [${r.ips.join(', ')}]`).join('; ') || 'no record'}; control plane: [${want.join(', ')}]`);
        }
      }

      const moveCount = mms.filter((m) => moved.has(clusterOf(m))).length;
      return {
        nodes: nodeCount,
        clusters: clusterCount,
        machines: machineCount,
        leaseSeconds: leaseTtlMs / 1000,
        recoverySeconds: round(recoveryMs / 1000, 3),
        clustersMoved: moved.size,
        machinesMoved: moveCount,
        allocatedMoreThanOnce: extra,
        providerIdsChanged: changed.size,
        dnsRecordsWrong: dnsWrong.length,
        allReady,
        seconds: round(seconds, 1),
        killed: victim,
        allocateCalls,
        maasMachinesHeld: taken,
        maasMachinesShared: shared.length,
        maasMachinesOrphaned: orphaned.length,
        dnsRecordsExtra: dnsExtra,
        withoutOwnMachine: withoutMachine.length,
        deployMs,
      };
    } finally {
      unwatch();
    }
  } finally {
    await c.dispose();
  }
}
