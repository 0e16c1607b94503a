// 1,000 MaasMachines deployed and released through the MAAS simulator on loopback (zero deploy
// time), 50 MAAS slots: the actor system's and the MAAS client's own cost per machine.
import { createFixtureProvisioner } from '../src/adapters/fixture/index.ts';
import { createMaasClient } from '../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../src/adapters/maas/driver/index.ts';
import { generateMaasCluster } from '../src/cli/demo/maas-fleet.ts';
import { DEFAULT_MACHINE_CONFIG } from '../src/machines/bmh/index.ts';
import { startMaasSim } from '../src/sim/maas/index.ts';
import { intFlag, startLocalBenchNode } from './support.ts';

export async function run(flags: Record<string, string>): Promise<object> {
  const count = intFlag(flags, 'machines', 1_000);
  const limit = intFlag(flags, 'limit', 50);
  const sim = await startMaasSim({
    deployMs: 0, releaseMs: 0,
    machines: Array.from({ length: count }, (_, i) => ({ hostname: `node-${i}`, zone: i % 2 ? 'az1' : 'az2', cpuCount: 4 + (i % 4), memoryMb: 8192 })),
  });
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey });
  const { store: local, stop } = await startLocalBenchNode({
    name: 'bench-maas', shardCount: 16, machine: DEFAULT_MACHINE_CONFIG,
    capacity: { limits: {}, defaultLimit: limit, ttlMs: 60_000 },
    supervision: { maxRestarts: 5, windowMs: 60_000, backoff: { initialMs: 100, maxMs: 5_000 } }, askTimeoutMs: 30_000,
  }, [], {
    provisioner: createFixtureProvisioner(),
    maas: { driver: createMaasDriver(client), clusterResyncMs: 60_000, config: { deployingPollMs: 20, steadyPollMs: 3_600_000, powerOnRequeueMs: 1_000 } },
  }, { objects: true });
  // The store the embedded default runs: the KV object store on the node's memory KV; bootstrap
  // Secrets go beside it through the local store, as `demo` applies them.
  const store = local.objects;
  if (!store) throw new Error('bench: no object store opened');
  const apply = async (objects: readonly unknown[], what: string): Promise<void> => {
    const applied = await local.applyObjects(objects, 'bench');
    if (!applied.ok) throw new Error(`bench ${what} invalid: ${applied.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
  };
  // Workers only, and no MaasCluster: the cost measured is the machines'. Their Cluster says its
  // infrastructure is provisioned (as Cluster API would copy it from a MaasCluster), without which
  // no machine is allocated (CAPMAAS: the infrastructure comes first).
  const objects = generateMaasCluster({ controlPlane: 0, workers: count }).filter((o) => (o as { kind: string }).kind !== 'MaasCluster');
  await apply(objects.filter((o) => (o as { kind: string }).kind === 'Cluster'), 'Cluster');
  await store.writeStatus('Cluster', 'capi/demo', { infrastructureReady: true });
  client.stats.reset();
  const started = performance.now();
  await apply(objects.filter((o) => (o as { kind: string }).kind !== 'Cluster'), 'objects');
  await until(async () => (await store.list('MaasMachine')).every((m) => (m.status as { ready?: boolean } | undefined)?.ready === true), 600_000);
  const deployedAt = performance.now();
  for (const m of await store.list('MaasMachine')) await store.requestDelete('MaasMachine', `${m.metadata.namespace}/${m.metadata.name}`);
  await until(async () => (await store.list('MaasMachine')).length === 0 && sim.machines().every((m) => m.status_name === 'Ready'), 600_000);
  const seconds = (performance.now() - started) / 1000;
  const calls = client.stats.total;
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
  };
}

async function until(cond: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`benchmark did not finish within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
