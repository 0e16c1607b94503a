// A fleet's makespan against what its capacity slots allow, and whether the broker ever sat on a
// free slot beside a waiting host (stall seconds).
//
//   npm run bench -- scale [--hosts 10000] [--latency 20] [--limit 200]
//     The embedded default, as `metalfleet demo` runs it: one node on the memory bus and KV, the
//     fixture answering every call after --latency ms. Each host is inspected and provisioned, two
//     gated calls, so the slot-bound ideal is ceil(2 x hosts / limit) x latency. --persist FILE
//     saves the host buckets to FILE as they change, as `metalfleet demo --persist` does.
//   npm run bench -- scale --nodes 3 [--hosts 3000] [--latency 300] [--limit 50] [--stagger ms]
//     metalfleet node processes on a three-server NATS JetStream cluster with R3 buckets, as
//     deploy/nats runs it, with the lease TTL production runs there (15 s). Inspection is off
//     and only provisioning takes --latency (every other call 5 ms), so the ideal is
//     ceil(hosts / limit) x latency. --stagger starts the nodes that many ms apart (a join under
//     load) instead of all at once. --profile DIR has each node process write a V8 CPU profile
//     there when it stops (node --cpu-prof). --max-calls SPEC is passed to every node
//     (`metalfleet node --max-calls`): e.g. fixture=64 puts the remote fixture's calls, which
//     wait in its 64-connection pool first come first served, behind the call bound, which
//     serves hosts that started first.
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { createFixtureProvisioner } from '../src/adapters/fixture/index.ts';
import { persistKv } from '../src/adapters/store/kv-snapshot.ts';
import { kindBuckets } from '../src/machines/kinds.ts';
import type { FixtureCallRecord } from '../src/adapters/fixture/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../src/machines/bmh/index.ts';
import { gather } from '../src/cluster/introspect/index.ts';
import type { PoolRow } from '../src/cluster/introspect/index.ts';
import type { Node } from '../src/node/index.ts';
import { REPLICATED_LEASE_TTL_MS } from '../src/node/index.ts';
import { startCluster } from '../test/support/cluster.ts';
import { fleetHosts, pollUntil, progress, round } from './cluster-support.ts';
import { describeBreach, limitWatch } from './limit-watch.ts';
import type { Breach } from './limit-watch.ts';
import { slotTimeline } from './slot-timeline.ts';
import { BenchFlagError, eventLoopMonitor, gc, hosts, intFlag, prepareLocalBenchNode, until } from './support.ts';

const TARGET = 1.15;

export async function run(flags: Record<string, string>): Promise<object> {
  const nodes = intFlag(flags, 'nodes', 1);
  if (flags.persist !== undefined && nodes > 1) throw new BenchFlagError('--persist: only the embedded form saves its KV to a file; a cluster keeps it in NATS');
  if (flags.persist === '') throw new BenchFlagError('--persist: expected the path of a file to save the host buckets to, got ""');
  return nodes <= 1 ? embedded(flags) : cluster(flags, nodes);
}

/** What the broker of the embedded node counted: grants, KV writes of pool records, turns. */
function brokerCounts(node: Node): { granted: number; writes: number; batches: number } {
  const broker = node.system.registry.list().find((a) => a.kind === 'capacity-broker');
  const s = (broker?.summary ?? {}) as Record<string, unknown>;
  const n = (k: string): number => (typeof s[k] === 'number' ? s[k] : 0);
  return { granted: n('granted'), writes: n('writes'), batches: n('batches') };
}

async function embedded(flags: Record<string, string>): Promise<object> {
  const count = intFlag(flags, 'hosts', 10_000);
  const latencyMs = intFlag(flags, 'latency', 20);
  const limit = intFlag(flags, 'limit', 200);
  if (limit < 1) throw new BenchFlagError('--limit: scale measures against the slots, so it needs a limit of at least 1');
  gc();
  const baseline = process.memoryUsage().heapUsed;
  const provisioner = createFixtureProvisioner({ latencyMs, demoBehaviours: false });
  const prepared = await prepareLocalBenchNode(hosts(count, { inspection: true }));
  const persistPath = flags.persist === undefined ? null : resolve(flags.persist);
  const persist = persistPath === null ? null : await persistKv(persistPath, await Promise.all(kindBuckets().map((name) => prepared.substrate.transport.kv(name))));
  const lag = eventLoopMonitor();
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const node = await prepared.start({
    name: 'bench-scale',
    shardCount: 256,
    machine: { ...DEFAULT_MACHINE_CONFIG, powerPollMs: 3_600_000 },
    capacity: { limits: {}, defaultLimit: limit, ttlMs: 30_000 },
    supervision: { maxRestarts: 5, windowMs: 60_000, backoff: { initialMs: 100, maxMs: 30_000 } },
    askTimeoutMs: 30_000,
  }, { provisioner });
  const kvBefore: Record<string, number> = prepared.substrate.memoryKv?.revisions() ?? {};
  await until(node.stats, () => node.stats.count('provisioned') === count, 600_000);
  const makespan = (performance.now() - started) / 1000;
  // CPU time beside wall time: on a shared machine the makespan also says how busy the neighbours were.
  const cpu = process.cpuUsage(cpuBefore);
  lag.stop();
  await persist?.close();
  const figures = await node.capacity();
  const counts = brokerCounts(node);
  const kvAfter: Record<string, number> = prepared.substrate.memoryKv?.revisions() ?? {};
  const kvWritesByBucket = Object.fromEntries(Object.entries(kvAfter).map(([b, n]) => [b, n - (kvBefore[b] ?? 0)]));
  const kvWrites = Object.values(kvWritesByBucket).reduce((a, b) => a + b, 0);
  gc();
  const heap = process.memoryUsage().heapUsed - baseline;
  await prepared.stop();
  const ideal = Math.ceil((2 * count) / limit) * latencyMs / 1000;
  const ratio = makespan / ideal;
  return {
    form: 'embedded',
    hosts: count,
    limit,
    latencyMs,
    makespanSeconds: round(makespan, 3),
    idealSeconds: round(ideal, 3),
    ratio: round(ratio, 2),
    target: TARGET,
    pass: ratio <= TARGET && figures.totals.stallSeconds === 0,
    stallSeconds: figures.totals.stallSeconds,
    cpuSeconds: round((cpu.user + cpu.system) / 1e6, 3),
    // The node's own CPU per host: the ideal allows idealSeconds / hosts of it on one JS thread.
    cpuMicrosPerHost: Math.round((cpu.user + cpu.system) / count),
    ...cpuBound((cpu.user + cpu.system) / 1e6, ideal),
    grantsPerSecond: Math.round(counts.granted / makespan),
    poolWrites: counts.writes,
    grantsPerPoolWrite: round(counts.granted / Math.max(1, counts.writes), 2),
    kvWritesPerHost: round(kvWrites / count, 2),
    kvWritesByBucket,
    heapBytesPerHost: Math.round(heap / count),
    eventLoopLagP99Ms: round(lag.p99Ms(), 2),
    ...(persistPath === null ? {} : { persistFileBytes: statSync(persistPath).size }),
  };
}

/**
 * The makespan the CPU alone allows: the CPU seconds every process of the run used, spread over
 * all of this machine's cores at once. No scheduling beats it, so a cpuBoundRatio above the target
 * says the target needs less CPU per host or more cores, not better turn order.
 */
function cpuBound(cpuSeconds: number, ideal: number): { cores: number; cpuBoundSeconds: number; cpuBoundRatio: number } {
  const cores = availableParallelism();
  return { cores, cpuBoundSeconds: round(cpuSeconds / cores, 2), cpuBoundRatio: round(cpuSeconds / cores / ideal, 2) };
}

const sumOf = (values: ReadonlyArray<number | null>): number => values.reduce<number>((a, b) => a + (b ?? 0), 0);

/** The pid of the process whose command line holds `text`; undefined when none does. */
function pidWithArgument(text: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** CPU seconds a process has used (user + system), from /proc; null where there is none. */
function cpuSecondsOf(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** Messages stored in each KV bucket's stream since `before` (a write is one message). */
async function streamWrites(servers: readonly string[]): Promise<Record<string, number>> {
  const nc = await connect({ servers: [...servers], name: 'bench-scale-streams' });
  try {
    const jsm = await jetstreamManager(nc);
    const out: Record<string, number> = {};
    for await (const s of jsm.streams.list()) if (s.config.name.startsWith('KV_')) out[s.config.name.slice(3)] = s.state.last_seq;
    return out;
  } finally {
    await nc.close();
  }
}

const FLAT_SECONDS = 60;

/** Calls `onFlat` once each time the count has not moved for `seconds`. */
function flatWatch(seconds: number, onFlat: () => void): { observe(count: number): void } {
  let last = -1;
  let since = Date.now();
  let told = false;
  return {
    observe(count) {
      if (count !== last) [last, since, told] = [count, Date.now(), false];
      else if (!told && Date.now() - since >= seconds * 1_000) {
        told = true;
        onFlat();
      }
    },
  };
}

/**
 * Names the hosts not yet provisioned with what they wait for: their state in KV, the node that
 * drives them (and its view of the state), and whether the broker has them holding or waiting for
 * a slot. Printed when the count stays flat or the bench gives up, so a stall can be read at once.
 */
async function reportUndeployed(c: { statesOf(keys: readonly string[]): Promise<Map<string, string>>; transport: BusTransport }, keys: readonly string[]): Promise<void> {
  const states = await c.statesOf(keys);
  const left = keys.filter((k) => states.get(k) !== 'provisioned');
  const driven = await drivenHosts(c.transport, 10_000);
  const pools = await brokerPools(c.transport, 10_000);
  for (const p of pools) {
    progress(`broker ${p.broker} pool ${p.pool}: ${p.inUseCount ?? p.inUse.length} in use, ${p.waitingCount ?? p.waiting.length} waiting, longest wait ${Math.round(p.longestWaitMs)} ms, stall ${p.stallSeconds ?? 0} s`);
  }
  const slotOf = (key: string): string => {
    const held = pools.flatMap((p) => p.inUse.filter((u) => u.holder.includes(key)).map((u) => `holds ${p.pool}/${u.operation} ${Math.round(u.sinceMs / 1000)} s`));
    const waits = pools.flatMap((p) => p.waiting.filter((w) => w.holder.includes(key)).map((w) => `waits ${p.pool}/${w.operation} ${Math.round(w.waitingMs / 1000)} s`));
    return [...held, ...waits].join(', ') || 'no slot';
  };
  progress(`${left.length} hosts not provisioned (the first 40):`);
  for (const key of left.slice(0, 40)) {
    const d = driven.get(key);
    progress(`  ${key}: KV ${states.get(key) || '(none)'}, ${d ? `driven by ${d.node} (shard ${d.shard}) in ${d.state} for ${Math.round(d.sinceMs / 1000)} s` : 'driven by no node'}, ${slotOf(key)}`);
  }
  // Holders that are not among the hosts left: grants nobody will use.
  for (const p of pools) {
    const strays = p.inUse.filter((u) => !left.some((k) => u.holder.includes(k)));
    if (strays.length > 0) progress(`pool ${p.pool}: ${strays.length} grants held by finished/unknown holders: ${strays.slice(0, 10).map((u) => `${u.holder} ${Math.round(u.sinceMs / 1000)} s`).join('; ')}`);
  }
}

type BusTransport = Parameters<typeof gather>[0];

/** The node driving each host now, its state there and for how long; empty when no node answers. */
async function drivenHosts(transport: BusTransport, timeoutMs: number): Promise<Map<string, { node: string; state: string; shard: number; sinceMs: number }>> {
  const hosts = await gather(transport, 'hosts', {}, { timeoutMs }).catch(() => null);
  const driven = new Map<string, { node: string; state: string; shard: number; sinceMs: number }>();
  for (const r of hosts?.replies ?? []) for (const h of r.value.hosts) driven.set(h.key, { node: r.value.node, state: h.state, shard: h.shard, sinceMs: h.stateSinceMs });
  return driven;
}

/** Every pool as the serving broker reports it, with that broker's node. */
async function brokerPools(transport: BusTransport, timeoutMs: number): Promise<Array<PoolRow & { broker: string }>> {
  const capacity = await gather(transport, 'capacity', {}, { timeoutMs }).catch(() => null);
  return (capacity?.replies ?? []).filter((r) => r.value.broker).flatMap((r) => r.value.pools.map((p) => ({ broker: r.value.node, ...p })));
}

async function explainBreach(c: { fixture: { fixture: { callLog(limit?: number): FixtureCallRecord[] } }; transport: BusTransport }, breach: Breach, startedAt: number): Promise<void> {
  const calls = c.fixture.fixture.callLog();
  const [pools, driven] = await Promise.all([brokerPools(c.transport, 5_000), drivenHosts(c.transport, 5_000)]);
  const holders = pools.flatMap((p) => p.inUse.map((u) => u.holder));
  for (const line of describeBreach(breach, calls, { holders, driven }, startedAt)) progress(line);
}

async function cluster(flags: Record<string, string>, nodeCount: number): Promise<object> {
  const hostCount = intFlag(flags, 'hosts', 3_000);
  const latencyMs = intFlag(flags, 'latency', 300);
  const limit = intFlag(flags, 'limit', 50);
  const staggerMs = intFlag(flags, 'stagger', 0);
  const shards = intFlag(flags, 'shards', 256);
  if (limit < 1) throw new BenchFlagError('--limit: scale measures against the slots, so it needs a limit of at least 1');
  const timeline = slotTimeline();
  // Set once the cluster is up: a breach is explained from the fixture's call log and the broker.
  let onBreach = (_breach: Breach): void => undefined;
  const overLimit = limitWatch(limit, (b) => onBreach(b));
  const fixture = {
    latencyMs: { register: 5, prepare: 5, provision: latencyMs, deprovision: latencyMs, hardwareState: 5, powerOn: 5, powerOff: 5 },
    demoBehaviours: false,
    // Long enough to hold the call that opened any operation still running at a breach.
    callLogSize: 65_536,
    onGate: (e: Parameters<typeof timeline.onGate>[0]) => {
      timeline.onGate(e);
      overLimit.onGate(e);
    },
  };
  if (flags.profile) {
    // The node processes read CLUSTER_NODE_FLAGS when each starts; SIGTERM at the end lets them write.
    const dir = resolve(flags.profile);
    mkdirSync(dir, { recursive: true });
    process.env.CLUSTER_NODE_FLAGS = [process.env.CLUSTER_NODE_FLAGS, '--cpu-prof', `--cpu-prof-dir=${dir}`].filter(Boolean).join(' ');
    progress(`node CPU profiles go to ${dir}`);
  }
  progress(`starting a three-server NATS cluster and the fixture backend`);
  const nodeArgs = flags['max-calls'] ? ['--max-calls', flags['max-calls']] : [];
  // The lease TTL production runs on R3 buckets (a node's default with --replicas 3).
  const leaseTtlMs = REPLICATED_LEASE_TTL_MS;
  const c = await startCluster({ nats: 'cluster', shards, leaseTtlMs, limit, fixture, nodeArgs });
  try {
    const all = fleetHosts(hostCount, { paused: false });
    const keys = all.map((h) => `${h.metadata.namespace}/${h.metadata.name}`);
    progress(`applying ${hostCount} hosts`);
    const applied = await c.store.apply(all, 'bench-scale');
    if (!applied.ok) throw new Error(`apply failed: ${JSON.stringify(applied).slice(0, 500)}`);
    const before = await streamWrites(c.natsUrls);
    const names = Array.from({ length: nodeCount }, (_, i) => String.fromCharCode(97 + i));
    // The NATS servers and this process (the fixture backend) share the cores with the nodes.
    const natsPids = c.nats.servers.map((srv) => [srv.name, pidWithArgument(srv.dir)] as const);
    const cpuOfNats = (): Record<string, number> => Object.fromEntries(natsPids.map(([n, pid]) => [n, cpuSecondsOf(pid) ?? 0]));
    const natsCpuBefore = cpuOfNats();
    const benchCpuBefore = process.cpuUsage();
    const started = performance.now();
    onBreach = (b) => void explainBreach(c, b, started).catch((e: unknown) => progress(`breach diagnostic failed: ${String(e)}`));
    progress(`starting nodes ${names.join(', ')}${staggerMs > 0 ? ` ${staggerMs} ms apart` : ' at once'}`);
    const starting: Promise<unknown>[] = [];
    // When each node process answered its start (NATS connected, buckets open, health listening).
    const readyAt: Record<string, number> = {};
    for (const [i, name] of names.entries()) {
      if (i > 0 && staggerMs > 0) await new Promise((r) => setTimeout(r, staggerMs));
      starting.push(c.startNode(name).then(() => (readyAt[name] = round((performance.now() - started) / 1000, 2))));
    }
    await Promise.all(starting);
    // The nodes' event-loop lag (p99 of each one's last sampling interval), the worst seen.
    const lagMs: Record<string, number> = {};
    // CPU seconds each node used: on a shared machine a count of work, where wall time is not.
    const cpuOfNodes = (): Record<string, number | null> => Object.fromEntries(names.map((n) => [n, cpuSecondsOf(c.nodes.get(n)?.child.pid)]));
    let cpuAtFirstGrant: Record<string, number | null> | null = null;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        if (cpuAtFirstGrant === null && c.fixture.fixture.maxBusy > 0) cpuAtFirstGrant = cpuOfNodes();
        const info = await gather(c.transport, 'info', {}, { timeoutMs: 1_000 }).catch(() => null);
        for (const r of info?.replies ?? []) lagMs[r.value.node] = Math.max(lagMs[r.value.node] ?? 0, round(r.value.eventLoopLagMs, 1));
        await new Promise((r) => setTimeout(r, 1_000));
      }
    })();
    let reportedAt = 0;
    const flat = flatWatch(FLAT_SECONDS, () => void reportUndeployed(c, keys).catch((e: unknown) => progress(`diagnostic failed: ${String(e)}`)));
    // The backend says when the last deploy ended, at no cost; only then are the 3,000 statuses
    // read (reading them every 250 ms throughout took the bench process, which also serves the
    // fixture, about 2 s a round and loaded the NATS servers beside the nodes).
    await pollUntil(() => {
      if (Date.now() - reportedAt > 2_000) {
        reportedAt = Date.now();
        progress(`${(performance.now() - started) / 1000 | 0} s: ${timeline.closed()} deployed, ${c.fixture.fixture.busy()} deploying`);
        flat.observe(timeline.closed());
      }
      return timeline.closed() >= hostCount;
    }, 600_000, `all ${hostCount} hosts deployed at the backend`, 20).catch(async (e: unknown) => {
      await reportUndeployed(c, keys);
      throw e;
    });
    const provisioned = async (): Promise<number> => {
      let n = 0;
      for (const s of (await c.statesOf(keys)).values()) if (s === 'provisioned') n++;
      return n;
    };
    await pollUntil(async () => (await provisioned()) === hostCount, 600_000, `all ${hostCount} hosts provisioned`, 20);
    const makespan = (performance.now() - started) / 1000;
    const cpuAtEnd = cpuOfNodes();
    const natsCpu = Object.fromEntries(Object.entries(cpuOfNats()).map(([n, cpu]) => [n, round(cpu - (natsCpuBefore[n] ?? 0), 2)]));
    const benchCpu = process.cpuUsage(benchCpuBefore);
    const benchCpuSeconds = round((benchCpu.user + benchCpu.system) / 1e6, 2);
    sampling = false;
    await sampler;
    const slots = timeline.figures(started, limit) as { firstGrantSeconds: number | null };
    const capacity = await gather(c.transport, 'capacity', {}, { timeoutMs: 5_000 });
    const pools: PoolRow[] = capacity.replies.filter((r) => r.value.broker).flatMap((r) => r.value.pools);
    const stallSeconds = pools.reduce((a, p) => a + (p.stallSeconds ?? 0), 0);
    const after = await streamWrites(c.natsUrls);
    const kvWritesByBucket = Object.fromEntries(Object.entries(after).map(([b, n]) => [b, n - (before[b] ?? 0)]));
    const kvWrites = Object.values(kvWritesByBucket).reduce((a, b) => a + b, 0);
    const backend = c.fixture.fixture;
    const notOnce = keys.filter((k) => backend.starts(k).provision !== 1).length;
    const ideal = Math.ceil(hostCount / limit) * latencyMs / 1000;
    const ratio = makespan / ideal;
    return {
      form: 'cluster',
      nodes: nodeCount,
      natsServers: 3,
      replicas: 3,
      leaseTtlMs,
      hosts: hostCount,
      limit,
      latencyMs,
      staggerMs,
      maxCalls: flags['max-calls'] ?? null,
      makespanSeconds: round(makespan, 2),
      idealSeconds: round(ideal, 2),
      // From the nodes' start, as a user sees it (start-up and the hosts' registration count).
      ratio: round(ratio, 2),
      // From the first grant: what the slots themselves were kept to once work could start.
      ratioFromFirstGrant: slots.firstGrantSeconds === null ? null : round((makespan - slots.firstGrantSeconds) / ideal, 2),
      nodesReadySeconds: readyAt,
      ...slots,
      nodeEventLoopLagP99MaxMs: lagMs,
      nodeCpuSecondsToFirstGrant: cpuAtFirstGrant,
      nodeCpuSeconds: cpuAtEnd,
      nodeCpuMicrosPerHost: Math.round(sumOf(Object.values(cpuAtEnd)) * 1e6 / hostCount),
      natsServerCpuSeconds: natsCpu,
      // This process serves the fixture backend (every node's HTTP calls) beside the bench's own reads.
      benchCpuSeconds,
      ...cpuBound(sumOf(Object.values(cpuAtEnd)) + sumOf(Object.values(natsCpu)) + benchCpuSeconds, ideal),
      target: TARGET,
      pass: ratio <= TARGET && stallSeconds === 0 && notOnce === 0 && backend.maxBusy <= limit,
      stallSeconds,
      provisionsPerSecond: Math.round(hostCount / makespan),
      kvWritesPerHost: round(kvWrites / hostCount, 2),
      kvWritesByBucket,
      maxBusyAtBackend: backend.maxBusy,
      limitBreaches: overLimit.breaches(),
      hostsNotDeployedOnce: notOnce,
    };
  } finally {
    // SIGTERM first: a node run with --cpu-prof (CLUSTER_NODE_FLAGS) writes its profile on exit.
    await Promise.all([...c.nodes.keys()].map((n) => c.stopNode(n))).catch(() => undefined);
    await c.dispose();
  }
}
