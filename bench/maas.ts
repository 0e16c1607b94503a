// 1,000 MaasMachines deployed and released through the MAAS simulator on loopback (zero deploy
// time), 50 MAAS slots: the actor system's and the MAAS client's own cost per machine.
import { createFixtureProvisioner } from '../src/adapters/fixture/index.ts';
import { createMaasClient } from '../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../src/adapters/maas/driver/index.ts';
import { generateMaasCluster } from '../src/cli/demo/maas-fleet.ts';
import { DEFAULT_MACHINE_CONFIG } from '../src/machines/bmh/index.ts';
import { startMaasSim } from '../src/sim/maas/index.ts';
import { maasMachineWakes } from '../src/actors/maas/binding.ts';
import type { ResourceStore } from '../src/ports/index.ts';
import { intFlag, prepareLocalBenchNode } from './support.ts';

export async function run(flags: Record<string, string>): Promise<object> {
  const count = intFlag(flags, 'machines', 1_000);
  const limit = intFlag(flags, 'limit', 50);
  const sim = await startMaasSim({
    deployMs: 0, releaseMs: 0,
    machines: Array.from({ length: count }, (_, i) => ({ hostname: `node-${i}`, zone: i % 2 ? 'az1' : 'az2', cpuCount: 4 + (i % 4), memoryMb: 8192 })),
  });
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey });
  const prepared = await prepareLocalBenchNode([], { objects: true });
  const local = prepared.store;
  // Store reads of the node (get + list), counted by wrapping the one store before the node
  // runs on it; the bench's own polling and applies go around the counter.
  if (!local.objects) throw new Error('bench: no object records opened');
  const reads = countReads(prepared.resources);
  await prepared.start({
    name: 'bench-maas', shardCount: 16, machine: DEFAULT_MACHINE_CONFIG,
    capacity: { limits: {}, defaultLimit: limit, ttlMs: 60_000 },
    supervision: { maxRestarts: 5, windowMs: 60_000, backoff: { initialMs: 100, maxMs: 5_000 } }, askTimeoutMs: 30_000,
  }, {
    provisioner: createFixtureProvisioner(),
    maas: { driver: createMaasDriver(client), clusterResyncMs: 60_000, config: { deployingPollMs: 20, steadyPollMs: 3_600_000, powerOnRequeueMs: 1_000 } },
  });
  const stop = prepared.stop;
  // The store the embedded default runs: the one KV store on the node's memory KV; bootstrap
  // Secrets go beside it through the local store, as `demo` applies them.
  const store = reads.raw;
  const apply = async (objects: readonly unknown[], what: string): Promise<void> => {
    const applied = await reads.uncounted(() => local.applyObjects(objects, 'bench'));
    if (!applied.ok) throw new Error(`bench ${what} invalid: ${applied.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
  };
  // Workers only, and no MaasCluster: the cost measured is the machines'. Their Cluster says its
  // infrastructure is provisioned (as Cluster API would copy it from a MaasCluster), without which
  // no machine is allocated (CAPMAAS: the infrastructure comes first).
  const objects = generateMaasCluster({ controlPlane: 0, workers: count }).filter((o) => (o as { kind: string }).kind !== 'MaasCluster');
  await apply(objects.filter((o) => (o as { kind: string }).kind === 'Cluster'), 'Cluster');
  await store.writeStatus('Cluster', 'capi/demo', { infrastructureReady: true });
  client.stats.reset();
  reads.reset();
  const started = performance.now();
  await apply(objects.filter((o) => (o as { kind: string }).kind !== 'Cluster'), 'objects');
  await until(async () => (await store.list('MaasMachine')).every((m) => (m.status as { ready?: boolean } | undefined)?.ready === true), 600_000);
  const deployedAt = performance.now();
  for (const m of await store.list('MaasMachine')) await store.requestDelete('MaasMachine', `${m.metadata.namespace}/${m.metadata.name}`);
  await until(async () => (await store.list('MaasMachine')).length === 0 && sim.machines().every((m) => m.status_name === 'Ready'), 600_000);
  const seconds = (performance.now() - started) / 1000;
  const calls = client.stats.total;
  const wakes = reads.wakes();
  const byRoute = Object.fromEntries(Object.entries(client.stats.byRoute).map(([k, v]) => [k, Number((v / count).toFixed(2))]));
  await stop();
  client.close();
  await sim.stop();
  return {
    machines: count,
    limit,
    seconds: Number(seconds.toFixed(2)),
    deploySeconds: Number(((deployedAt - started) / 1000).toFixed(2)),
    machinesPerSecond: Math.round(count / seconds),
    maasCallsPerMachine: Number((calls / count).toFixed(2)),
    callsPerMachineByRoute: byRoute,
    maxDeployingInMaas: sim.counts().maxDeploying,
    storeReads: reads.total,
    maasMachineWakes: wakes,
    storeReadsPerWake: wakes === 0 ? null : Number((reads.total / wakes).toFixed(2)),
    storeReadsByKind: reads.byKind,
  };
}

async function until(cond: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`benchmark did not finish within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Counts the node's get and list calls by replacing them on the one store the node will run on; `raw` reads around the counter (the bench's own polling), `uncounted` runs the
 * bench's applies outside it.
 */
function countReads<S extends ResourceStore>(objects: S): { raw: S; total: number; byKind: Record<string, number>; wakes(): number; reset(): void; uncounted<T>(work: () => Promise<T>): Promise<T> } {
  const get = objects.get.bind(objects);
  const list = objects.list.bind(objects);
  const getSecret = objects.getSecret.bind(objects);
  let paused = 0;
  const counts = { total: 0, byKind: {} as Record<string, number> };
  const count = (what: string): void => {
    if (paused > 0) return;
    counts.total += 1;
    counts.byKind[what] = (counts.byKind[what] ?? 0) + 1;
  };
  objects.get = (kind, key) => { count(`get ${kind}`); return get(kind, key); };
  objects.list = (kind) => { count(`list ${kind}`); return list(kind); };
  objects.getSecret = (ns, name) => { count('get Secret'); return getSecret(ns, name); };
  // The store is a class instance: the bench's view delegates to it, reads going around the counter.
  const raw = new Proxy(objects, {
    get: (target, prop, receiver) => (prop === 'get' ? get : prop === 'list' ? list : prop === 'getSecret' ? getSecret : Reflect.get(target, prop, receiver) as unknown),
  });
  return {
    raw,
    get total() { return counts.total; },
    get byKind() { return { ...counts.byKind }; },
    wakes: () => maasMachineWakes(),
    reset() { counts.total = 0; counts.byKind = {}; },
    async uncounted(work) {
      paused += 1;
      try { return await work(); } finally { paused -= 1; }
    },
  };
}
