// Issue 30, a fleet's start-up: behind the per-backend call bound, the hosts that made their first
// call first are served first, so the first hosts go on to ask for a slot (provision) after a few
// calls' time, not after every host of the node has registered while the slots idle.
import test from 'ava';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { openLocalStore } from '../../src/adapters/store/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import { startLocalNode } from '../support/local-node.ts';
import { bmh, secret } from '../support/node.ts';
import { waitFor } from '../support/wait.ts';

const HOSTS = 200;
const BOUND = 4;

test('backend call order - 200 hosts behind a bound of 4: the first provisionings come after a few calls, in the order hosts started', async (t) => {
  const substrate = memorySubstrate();
  const store = await openLocalStore(substrate.transport);
  // Inspection off, as the multi-node scale bench runs: a host makes several calls without a slot
  // (register, prepare, power...) before it asks for one to provision.
  const host = (name: string): unknown => {
    const o = bmh(name) as { spec: Record<string, unknown> };
    return { ...o, spec: { ...o.spec, inspectionMode: 'disabled' } };
  };
  t.true((await store.applyObjects([secret(), ...Array.from({ length: HOSTS }, (_, i) => host(`h-${i}`))], 'test')).ok);
  const provisioner = createFixtureProvisioner({ latencyMs: 20, demoBehaviours: false, callLogSize: 100_000 });
  const node = await startLocalNode({
    name: 'order-node', shardCount: 8, healthPort: null, machine: DEFAULT_MACHINE_CONFIG,
    capacity: { limits: {}, defaultLimit: 20, ttlMs: 30_000 },
    calls: { limits: { fixture: BOUND }, defaultLimit: 50 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 5, maxMs: 20 } },
    askTimeoutMs: 5_000,
  }, { store: store.resources }, { provisioner }, {}, substrate);
  t.teardown(() => node.stop({ graceful: false }));
  await waitFor(() => (provisioner.totals().provision ?? 0) >= 40, 60_000, 'forty provisionings begun');

  const log = provisioner.callLog();
  const firstProvision = log.findIndex((c) => c.op === 'provision');
  const before = log.slice(0, firstProvision);
  t.log(`calls before the first provision: ${before.length}, by ${new Set(before.map((c) => c.host)).size} hosts (first come first served: every host's first call, ${HOSTS}+)`);
  // A host makes a handful of calls before it provisions; the bound runs four at once. Served in
  // arrival order, every host's first call goes before any host's second: 200+ calls, 200 hosts.
  t.true(before.length < 10 * BOUND, `${before.length} calls before the first provision`);

  // The order hosts asked for slots follows the order they started: the first 20 to provision
  // are among the first 40 to make a call.
  const startOrder = [...new Set(log.map((c) => c.host))];
  const provisionOrder = [...new Set(log.filter((c) => c.op === 'provision').map((c) => c.host))];
  const early = new Set(startOrder.slice(0, 40));
  const late = provisionOrder.slice(0, 20).filter((h) => !early.has(h));
  t.deepEqual(late, [], 'the first twenty to provision started among the first forty');
});
