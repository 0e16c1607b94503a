// A MaasMachine's and a MaasCluster's log lines carry the shard and the epoch of the tenure that
// wrote them, as a host actor's do (host-log-fields.test.ts): after a failover the lines of the
// old and the new owner of a cluster tell apart by epoch.
import test from 'ava';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { createMaasClient } from '../../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../../src/adapters/maas/driver/index.ts';
import { shardOf } from '../../src/api/index.ts';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { startLocalNode } from '../support/local-node.ts';
import { openLocalStoreWithMaas } from '../support/maas-node.ts';
import { recordingLogger, type LogLine as Line } from '../support/recording-logger.ts';
import { waitFor } from '../support/wait.ts';

const SHARDS = 8;

test('maas log fields - every line a MaasMachine or MaasCluster actor logs names its shard and epoch', async (t) => {
  const sim = await startMaasSim({ deployMs: 20, releaseMs: 20 });
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey });
  const substrate = memorySubstrate();
  const local = await openLocalStoreWithMaas(substrate.transport);
  const lines: Line[] = [];
  const node = await startLocalNode({
    name: 'maas-log-node', shardCount: SHARDS, machine: DEFAULT_MACHINE_CONFIG,
    capacity: { limits: {}, defaultLimit: 10, ttlMs: 30_000 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 10, maxMs: 100 } }, askTimeoutMs: 5_000,
  }, { store: local.resources, secrets: local.secrets }, {
    provisioner: createFixtureProvisioner({ latencyMs: 1, demoBehaviours: false }),
    maas: { driver: createMaasDriver(client), clusterResyncMs: 200, config: { deployingPollMs: 20, steadyPollMs: 100, powerOnRequeueMs: 50, backoffBaseMs: 20, backoffMaxMs: 200 } },
  }, { log: recordingLogger(lines) }, substrate);
  try {
    t.true((await local.applyObjects(generateMaasCluster({ controlPlane: 1, workers: 1 }))).ok);
    // Every MAAS kind of the cluster is sharded by `namespace/cluster`.
    const shard = shardOf('capi/demo', SHARDS);
    const machineLines = (): Line[] => lines.filter((l) => typeof l.obj.maasMachine === 'string');
    const clusterLines = (): Line[] => lines.filter((l) => typeof l.obj.maasCluster === 'string');
    await waitFor(() => machineLines().filter((l) => l.msg.includes('deployed and running')).length === 2, 30_000, 'both MaasMachines logged ready');
    await waitFor(() => clusterLines().some((l) => l.msg.includes('created DNS record')), 30_000, 'the MaasCluster logged its DNS record');
    const epoch = node.shards.owned().get(shard)?.epoch;
    t.true(typeof epoch === 'number' && epoch > 0);
    for (const line of [...machineLines(), ...clusterLines()]) t.like(line.obj, { shard, epoch }, `${line.level} ${line.msg}`);
  } finally {
    await node.stop();
    await local.resources.close();
    client.close();
    await sim.stop();
  }
});
