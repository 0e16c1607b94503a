// 1,000 hosts through one pool of 20 slots, provisioning taking 50 ms in the fixture: how close the
// broker keeps the backend to fully busy. ideal = ceil(N / limit) x latency; the hand-off is the
// time from one provision finishing to the next one starting on the freed slot.
import { createFixtureProvisioner } from '../src/adapters/fixture/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../src/machines/bmh/index.ts';
import type { Provisioner } from '../src/ports/index.ts';
import { PerformanceObserver } from 'node:perf_hooks';
import { hosts, intFlag, percentile, startLocalBenchNode, until } from './support.ts';

export async function run(flags: Record<string, string>): Promise<object> {
  const count = intFlag(flags, 'hosts', 1_000);
  const limit = intFlag(flags, 'limit', 20);
  const latencyMs = intFlag(flags, 'latency', 50);
  const fixture = createFixtureProvisioner({ latencyMs: { provision: latencyMs }, demoBehaviours: false });
  const starts: Array<{ at: number; key: string }> = [];
  const ends: number[] = [];
  // How long each provision held its slot as the node saw it: latencyMs plus the event-loop lag
  // before the node noticed the answer (a timer, or a real backend's reply, waits for the loop).
  const held: number[] = [];
  // A host asks the provisioner which pool it belongs to as it sends its slot request.
  const waitingSince = new Map<string, number>();
  let concurrent = 0;
  let maxConcurrent = 0;
  // Timestamps at the backend's edge, as a real Ironic would see the calls.
  const provisioner: Provisioner = Object.assign(Object.create(fixture) as Provisioner, {
    capacity(host: Parameters<Provisioner['capacity']>[0]) {
      waitingSince.set(host.key, performance.now());
      return fixture.capacity(host);
    },
    async provision(...args: Parameters<Provisioner['provision']>) {
      const at = performance.now();
      starts.push({ at, key: args[0].key });
      maxConcurrent = Math.max(maxConcurrent, ++concurrent);
      const result = await fixture.provision(...args);
      concurrent -= 1;
      const end = performance.now();
      ends.push(end);
      held.push(end - at);
      return result;
    },
  });
  // With --debug, GC pauses are listed beside the slow hand-offs they may explain.
  const pauses: Array<{ at: number; ms: number; kind: number }> = [];
  const gcObserver = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push({ at: e.startTime, ms: e.duration, kind: (e as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0 });
  });
  if (flags['debug']) gcObserver.observe({ entryTypes: ['gc'] });
  // Inspection off, so provisioning is the only gated step being measured.
  const { node, stop } = await startLocalBenchNode({
    name: 'bench-capacity',
    shardCount: 256,
    machine: { ...DEFAULT_MACHINE_CONFIG, powerPollMs: 3_600_000 },
    capacity: { limits: {}, defaultLimit: limit, ttlMs: 30_000 },
    supervision: { maxRestarts: 5, windowMs: 60_000, backoff: { initialMs: 100, maxMs: 30_000 } },
    askTimeoutMs: 30_000,
  }, hosts(count, { inspection: false }), { provisioner });
  await until(node.stats, () => node.stats.count('provisioned') === count, 600_000);
  await stop();
  const first = Math.min(...starts.map((s) => s.at));
  const last = Math.max(...ends);
  const makespanSeconds = (last - first) / 1000;
  const idealSeconds = (Math.ceil(count / limit) * latencyMs) / 1000;
  const sortedStarts = [...starts].sort((a, b) => a.at - b.at);
  const sortedEnds = [...ends].sort((a, b) => a - b);
  // The k-th call after the first `limit` runs on the slot the k-th finished call freed; its
  // hand-off counts from when both the slot was free and the host was waiting for it.
  const handoffs: number[] = [];
  for (let k = 0; k + limit < sortedStarts.length; k++) {
    const next = sortedStarts[k + limit];
    if (!next) continue;
    const ready = Math.max(sortedEnds[k] ?? 0, waitingSince.get(next.key) ?? 0);
    handoffs.push(next.at - ready);
  }
  gcObserver.disconnect();
  if (flags['debug']) {
    for (const [k, h] of handoffs.entries()) if (h > 2) process.stderr.write(`slow handoff #${k} at ${((sortedEnds[k] ?? 0) - first).toFixed(0)}ms: ${h.toFixed(2)}ms\n`);
    for (const p of pauses) if (p.ms > 1) process.stderr.write(`gc (kind ${p.kind}) at ${(p.at - first).toFixed(0)}ms: ${p.ms.toFixed(2)}ms\n`);
  }
  return {
    hosts: count,
    limit,
    latencyMs,
    makespanSeconds: round(makespanSeconds, 3),
    idealSeconds,
    ratio: round(makespanSeconds / idealSeconds, 3),
    handoffP50Ms: round(percentile(handoffs, 50), 3),
    handoffP99Ms: round(percentile(handoffs, 99), 3),
    // Where makespan - ideal went: (callMsMean - latencyMs) x hosts / limit is the loop's lag on
    // answers, idleSlotMsPerCall x hosts / limit the slots left free with no host waiting.
    callMsMean: round(held.reduce((a, b) => a + b, 0) / Math.max(1, held.length), 2),
    callMsP99: round(percentile(held, 99), 2),
    idleSlotMsPerCall: round(idleSlotMs(held, limit, last - first) / Math.max(1, count), 2),
    maxConcurrentAtBackend: maxConcurrent,
  };
}

/** Slot time left unused between the first start and the last end: limit x span - busy time. */
function idleSlotMs(held: readonly number[], limit: number, spanMs: number): number {
  return limit * spanMs - held.reduce((a, b) => a + b, 0);
}

function round(n: number, digits: number): number {
  return Number(n.toFixed(digits));
}
