// A node's log and /readyz say when its NATS connection drops and when it is back. Before, an
// outage showed only as its consequences — dozens of "lease lost" (reason "expired") and a
// heartbeat timeout with a stack — and /readyz said "not ready: a disconnected", where "a" is the
// node's name: nothing told the operator that NATS was what went away.
import test from 'ava';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { openLocalStore } from '../../src/adapters/store/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import type { BusStatus } from '../../src/ports/index.ts';
import { startLocalNode } from '../support/local-node.ts';
import { recordingLogger, type LogLine as Line } from '../support/recording-logger.ts';
import { waitUntil } from '../support/wait.ts';

test('connection log - a dropped bus connection is one warning naming it, its return one info line with how long it was down; /readyz says which connection is down', async (t) => {
  const substrate = memorySubstrate();
  // The node's view of its connection, driven by the test as NATS would drive it.
  const listeners: ((status: BusStatus) => void)[] = [];
  const onStatus = substrate.transport.onStatus.bind(substrate.transport);
  substrate.transport.onStatus = (listener) => {
    listeners.push(listener);
    return onStatus(listener);
  };
  const lines: Line[] = [];
  const store = await openLocalStore(substrate.transport);
  const node = await startLocalNode({
    name: 'conn-node', shardCount: 4, healthPort: 0,
    machine: DEFAULT_MACHINE_CONFIG,
    capacity: { limits: {}, defaultLimit: 1, ttlMs: 30_000 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 5, maxMs: 20 } },
    askTimeoutMs: 2_000,
  }, { store: store.resources }, { provisioner: createFixtureProvisioner({ latencyMs: 1, demoBehaviours: false }) }, { log: recordingLogger(lines) }, substrate);
  t.teardown(() => node.stop());
  const readyz = async (): Promise<{ status: number; body: string }> => {
    const res = await fetch(`${node.health?.url ?? 'http://missing'}/readyz`);
    return { status: res.status, body: await res.text() };
  };
  await waitUntil(async () => (await readyz()).status === 200, 20_000, '/readyz answers 200');
  const about = (): Line[] => lines.filter((l) => /connection/i.test(l.msg));
  t.deepEqual(about(), [], 'nothing said while connected');

  for (const listener of listeners) listener('disconnected');
  for (const listener of listeners) listener('reconnecting');
  const down = about();
  t.is(down.length, 1, JSON.stringify(down));
  t.is(down[0]?.level, 'warn');
  t.regex(down[0]?.msg ?? '', /connection lost/i);
  t.regex(down[0]?.msg ?? '', /reconnecting/i);
  const notReady = await readyz();
  t.is(notReady.status, 503);
  t.regex(notReady.body, /^not ready: disconnected from /);
  t.regex(notReady.body, /\(connection \S+: reconnecting\)/);

  await new Promise((r) => setTimeout(r, 20));
  for (const listener of listeners) listener('connected');
  const back = about().slice(1);
  t.is(back.length, 1, JSON.stringify(back));
  t.is(back[0]?.level, 'info');
  t.regex(back[0]?.msg ?? '', /connection back/i);
  t.true(Number(back[0]?.obj.downMs) >= 20, JSON.stringify(back[0]?.obj));
  t.is((await readyz()).status, 200);
});
