// N hosts from creation to provisioned through the full lifecycle (register, inspect, prepare,
// provision) with a zero-latency fixture and no capacity limit: the actor system's own cost.
import { writeHeapSnapshot } from 'node:v8';
import { createFixtureProvisioner } from '../src/adapters/fixture/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../src/machines/bmh/index.ts';
import { eventLoopMonitor, gc, hosts, intFlag, prepareLocalBenchNode, until } from './support.ts';

export async function run(flags: Record<string, string>): Promise<object> {
  const count = intFlag(flags, 'hosts', 10_000);
  gc();
  const baseline = process.memoryUsage().heapUsed;
  const provisioner = createFixtureProvisioner({ latencyMs: 0, demoBehaviours: false });
  const lag = eventLoopMonitor();
  const { start, stop, substrate } = await prepareLocalBenchNode(hosts(count, { inspection: true }));
  // KV writes the lifecycle costs (issue 29.5), counted from after the apply, as bench scale does.
  const kvBefore: Record<string, number> = substrate.memoryKv?.revisions() ?? {};
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const node = await start({
    name: 'bench-lifecycle',
    shardCount: 256,
    // Steady-state power polls are not part of this measurement.
    machine: { ...DEFAULT_MACHINE_CONFIG, powerPollMs: 3_600_000 },
    capacity: { limits: {}, defaultLimit: Number.POSITIVE_INFINITY, ttlMs: 30_000 },
    supervision: { maxRestarts: 5, windowMs: 60_000, backoff: { initialMs: 100, maxMs: 30_000 } },
    askTimeoutMs: 30_000,
  }, { provisioner });
  await until(node.stats, () => node.stats.count('provisioned') === count, 600_000);
  const seconds = (performance.now() - started) / 1000;
  // CPU time beside wall time: on a shared machine the wall time says more about the neighbours.
  const cpu = process.cpuUsage(cpuBefore);
  lag.stop();
  const kvAfter: Record<string, number> = substrate.memoryKv?.revisions() ?? {};
  const kvWritesByBucket = Object.fromEntries(Object.entries(kvAfter).map(([b, n]) => [b, n - (kvBefore[b] ?? 0)]));
  const kvWrites = Object.values(kvWritesByBucket).reduce((a, b) => a + b, 0);
  gc();
  const heap = process.memoryUsage().heapUsed - baseline;
  const alive = node.system.registry.size;
  // --heap-snapshot FILE: the settled fleet's heap, to see where the bytes per host go (issue 29).
  if (flags['heap-snapshot']) writeHeapSnapshot(flags['heap-snapshot']);
  await stop();
  return {
    hosts: count,
    seconds: round(seconds, 3),
    cpuSeconds: round((cpu.user + cpu.system) / 1e6, 3),
    hostsPerSecond: Math.round(count / seconds),
    heapBytesPerHost: Math.round(heap / count),
    kvWritesPerHost: round(kvWrites / count, 2),
    kvWritesByBucket,
    eventLoopLagP99Ms: round(lag.p99Ms(), 2),
    actorsAlive: alive,
    heapMiB: Math.round(heap / 1048576),
  };
}

function round(n: number, digits: number): number {
  return Number(n.toFixed(digits));
}
