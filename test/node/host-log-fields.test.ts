// A host actor's log lines carry the shard and the epoch of the tenure that wrote them, beside the
// host (DESIGN.md, Observability): after a failover, or a stale-fence refusal, the lines of the
// old and the new owner of a host tell apart by epoch.
import test from 'ava';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { openLocalStore } from '../../src/adapters/store/index.ts';
import { shardOf } from '../../src/api/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import { startLocalNode } from '../support/local-node.ts';
import { recordingLogger, type LogLine as Line } from '../support/recording-logger.ts';
import { bmh } from '../support/node.ts';
import { waitFor } from '../support/wait.ts';

test('host log fields - every line a host actor logs names its host, shard and epoch', async (t) => {
  const substrate = memorySubstrate();
  const store = await openLocalStore(substrate.transport);
  // No Secret: the host's registration fails, a Warning each time, logged by its actor.
  t.true((await store.applyObjects([bmh('nocreds', { credentialsName: 'absent' })], 'test')).ok);
  const lines: Line[] = [];
  const node = await startLocalNode({
    name: 'log-node', shardCount: 4,
    machine: DEFAULT_MACHINE_CONFIG,
    capacity: { limits: {}, defaultLimit: 1, ttlMs: 30_000 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 5, maxMs: 20 } },
    askTimeoutMs: 2_000,
  }, { store: store.resources }, { provisioner: createFixtureProvisioner({ latencyMs: 1, demoBehaviours: false }) }, { log: recordingLogger(lines) }, substrate);
  try {
    const hostLines = (): Line[] => lines.filter((l) => l.obj.host === 'lab/nocreds');
    await waitFor(() => hostLines().some((l) => l.level === 'warn'), 30_000, 'a warning of lab/nocreds logged');
    const epoch = node.shards.owned().get(shardOf('lab/nocreds', 4))?.epoch;
    t.true(typeof epoch === 'number' && epoch > 0);
    for (const line of hostLines()) t.like(line.obj, { host: 'lab/nocreds', shard: shardOf('lab/nocreds', 4), epoch }, line.msg);
  } finally {
    await node.stop();
  }
});
