// kill -9 of one node mid-run: `--nodes` `metalfleet node` processes share `--hosts` hosts on one
// shared fixture backend slow enough (provision `--latency` ms, `--limit` deployments at once
// cluster-wide) that the run is under way when a node dies at `--kill-at` of the hosts
// provisioned. `--kill node` (default) kills one that does not hold the broker lease, `--kill
// broker` the one that does. Measured: how long until every shard the dead node held is owned by
// a survivor (from the nodes' ownership logs; the harness ends the dead node's at its kill), how
// many hosts those shards carry, and what the backend saw twice — then every host must end
// provisioned, deployed exactly once.
import { shardOf } from '../src/api/index.ts';
import { LEASE_BUCKET } from '../src/node/index.ts';
import { decodeLeaseValue } from '../src/cluster/index.ts';
import { startCluster } from '../test/support/cluster.ts';
import { fleetHosts, pollUntil, progress, round } from './cluster-support.ts';
import { BenchFlagError, intFlag } from './support.ts';

export async function run(flags: Record<string, string>): Promise<object> {
  const nodeCount = intFlag(flags, 'nodes', 3);
  const hostCount = intFlag(flags, 'hosts', 3_000);
  const leaseTtlMs = intFlag(flags, 'lease-ttl', 5_000);
  const shards = intFlag(flags, 'shards', 256);
  const limit = intFlag(flags, 'limit', 50);
  const latencyMs = intFlag(flags, 'latency', 300);
  const killAt = intFlag(flags, 'kill-at', 0.3);
  const kill = flags['kill'] ?? 'node';
  if (kill !== 'node' && kill !== 'broker') throw new BenchFlagError(`--kill: expected "node" or "broker", got "${kill}"`);
  if (nodeCount < 2) throw new BenchFlagError(`--nodes ${nodeCount}: a failover needs at least 2 nodes`);

  // Every other backend call quick, so the deployments are what the slots are busy with.
  const fixture = {
    latencyMs: { register: 5, prepare: 5, provision: latencyMs, deprovision: latencyMs, hardwareState: 5, powerOn: 5, powerOff: 5 },
    demoBehaviours: false,
  };
  const c = await startCluster({ shards, leaseTtlMs, limit, fixture });
  try {
    const hosts = fleetHosts(hostCount, { paused: false });
    const keys = hosts.map((h) => `${h.metadata.namespace}/${h.metadata.name}`);
    progress(`applying ${hostCount} hosts`);
    const applied = await c.store.apply(hosts, 'bench-failover');
    if (!applied.ok) throw new Error(`apply failed: ${JSON.stringify(applied).slice(0, 500)}`);

    let reportedAt = 0;
    const provisionedCount = async (): Promise<number> => {
      const byState = new Map<string, number>();
      for (const state of (await c.statesOf(keys)).values()) byState.set(state, (byState.get(state) ?? 0) + 1);
      if (Date.now() - reportedAt > 5_000) {
        reportedAt = Date.now();
        progress(`states: ${[...byState].map(([s, n]) => `${s || 'new'} ${n}`).join(', ')}`);
      }
      return byState.get('provisioned') ?? 0;
    };

    const names = Array.from({ length: nodeCount }, (_, i) => String.fromCharCode(97 + i));
    const start = performance.now();
    progress(`starting nodes ${names.join(', ')}`);
    // All at once, as a deployment rolls out: a node joining a busy cluster would first make the
    // others hand shards (and hosts mid-step) over, which is not what this bench measures.
    await Promise.all(names.map((name) => c.startNode(name)));

    const threshold = Math.ceil(hostCount * killAt);
    await pollUntil(async () => (await provisionedCount()) >= threshold, 150_000, `${threshold} of ${hostCount} hosts provisioned`, 100);

    const leases = await c.transport.kv(LEASE_BUCKET, { ttlMs: leaseTtlMs });
    const entry = await leases.get('broker');
    const broker = entry ? decodeLeaseValue(entry.value)?.holder ?? null : null;
    if (!broker || !c.nodes.has(broker)) throw new Error(`no live node holds the broker lease (${broker ?? 'nobody'})`);
    const victim = kill === 'broker' ? broker : names.find((n) => n !== broker)!;
    const before = await provisionedCount();
    progress(`${before}/${hostCount} provisioned: kill -9 ${victim} (broker is ${broker})`);
    await c.killNode(victim);
    const killedAt = c.nodes.get(victim)?.killedAt ?? 0;

    // The harness closes each shard the killed node still held with a `lost` record at killedAt.
    const held = new Set((await c.ownership()).filter((r) => r.node === victim && r.kind === 'lost' && r.at === killedAt).map((r) => r.shard));
    const retakenAt = async (): Promise<Map<number, number>> => {
      const out = new Map<number, number>();
      for (const r of await c.ownership()) {
        if (r.kind !== 'acquired' || r.node === victim || r.at < killedAt || !held.has(r.shard)) continue;
        out.set(r.shard, Math.min(out.get(r.shard) ?? Number.POSITIVE_INFINITY, r.at));
      }
      return out;
    };
    await pollUntil(async () => (await retakenAt()).size === held.size, 60_000, `the ${held.size} shards of ${victim} owned again`, 50);
    const recoveryMs = Math.max(0, ...[...(await retakenAt()).values()].map((at) => at - killedAt));
    progress(`${held.size} shards of ${victim} owned again after ${Math.round(recoveryMs)} ms`);

    let allProvisioned = true;
    try {
      await pollUntil(async () => (await provisionedCount()) === hostCount, 150_000, `all ${hostCount} hosts provisioned`, 250);
    } catch (error) {
      allProvisioned = false;
      progress(`${error instanceof Error ? error.message : String(error)} (${await provisionedCount()} are)`);
    }
    const seconds = (performance.now() - start) / 1000;

    const backend = c.fixture.fixture;
    const notDeployedOnce = keys.filter((k) => backend.starts(k).provision !== 1 || backend.node(k)?.provisionCount !== 1);
    if (notDeployedOnce.length > 0) progress(`not deployed exactly once: ${notDeployedOnce.slice(0, 5).join(', ')}${notDeployedOnce.length > 5 ? ', …' : ''}`);
    progress(`backend: at most ${backend.maxBusy} deployments at once (limit ${limit})`);
    return {
      leaseSeconds: leaseTtlMs / 1000,
      recoverySeconds: round(recoveryMs / 1000, 3),
      hostsMoved: keys.filter((k) => held.has(shardOf(k, shards))).length,
      duplicateSteps: backend.duplicateStarts(),
      fencedCalls: backend.fencedCalls,
      allProvisioned: allProvisioned && notDeployedOnce.length === 0,
      seconds: round(seconds, 1),
      killed: kill === 'broker' ? `${victim} (broker)` : victim,
      hostsNotDeployedOnce: notDeployedOnce.length,
      maxBusy: backend.maxBusy,
    };
  } finally {
    await c.dispose();
  }
}
