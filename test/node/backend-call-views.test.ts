// Issue 30: the per-backend call bound as `metalfleet capacity` and /metrics show it: limit, calls
// in flight, calls waiting, per backend and node.
import test from 'ava';
import { capacityView } from '../../src/cli/introspect/index.ts';
import type { ViewOptions } from '../../src/cli/introspect/index.ts';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { openLocalStore } from '../../src/adapters/store/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import { serveEmbedded } from '../support/embedded-introspection.ts';
import { startLocalNode } from '../support/local-node.ts';
import { bmh, secret } from '../support/node.ts';
import { waitFor } from '../support/wait.ts';

test('call bound views - capacity lists each node\'s calls per backend; /metrics exports limit, in flight and waiting', async (t) => {
  const substrate = memorySubstrate();
  const store = await openLocalStore(substrate.transport);
  t.true((await store.applyObjects([secret(), ...Array.from({ length: 9 }, (_, i) => bmh(`reg-${i}`))], 'test')).ok);
  // Registration takes ten minutes: the bound stays full while we look.
  const provisioner = createFixtureProvisioner({ latencyMs: { register: 600_000 }, demoBehaviours: false });
  const node = await startLocalNode({
    name: 'calls-node', shardCount: 8, healthPort: 0, machine: DEFAULT_MACHINE_CONFIG,
    capacity: { limits: {}, defaultLimit: 20, ttlMs: 30_000 },
    calls: { limits: { fixture: 2 }, defaultLimit: 50 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 5, maxMs: 20 } },
    askTimeoutMs: 2_000,
  }, { store: store.resources }, { provisioner }, {}, substrate);
  const served = serveEmbedded(node.introspection, 'calls-node');
  t.teardown(async () => {
    await served.close();
    await node.stop({ graceful: false });
  });
  await waitFor(() => node.backendCalls().some((c) => c.inFlight === 2 && c.waiting === 7), 15_000, 'two registrations running, seven waiting');
  t.is(provisioner.maxCallsInFlight.ungated, 2);

  const base: ViewOptions = { format: 'table', width: 140, timeoutMs: 2_000, natsUrl: 'memory', nodes: ['calls-node'] };
  const json = JSON.parse((await capacityView(served.client, { ...base, format: 'json' })).stdout) as { replies: Array<{ value: { calls?: unknown[] } }> };
  t.like(json.replies[0]?.value.calls?.[0], { backend: 'fixture:default', limit: 2, inFlight: 2, waiting: 7, slotHolderInFlight: 0, maxInFlight: 2, waitedTotal: 7 });
  const table = (await capacityView(served.client, base)).stdout.split('\n');
  t.log(table.join('\n'));
  const at = table.indexOf('backend calls without a slot, per node');
  t.true(at >= 0);
  t.regex(table[at + 1]!, /^BACKEND +NODE +LIMIT +IN FLIGHT +WAITING +LONGEST WAIT +SLOT HOLDERS +MOST$/);
  t.regex(table[at + 2]!, /^fixture:default +calls-node +2 +2 +7 +\S+ +0 +2$/);

  const metrics = await (await fetch(`${node.health?.url ?? ''}/metrics`)).text();
  t.regex(metrics, /^metalfleet_backend_calls_limit\{backend="fixture:default",node="calls-node"\} 2$/m);
  t.regex(metrics, /^metalfleet_backend_calls_in_flight\{backend="fixture:default",node="calls-node"\} 2$/m);
  t.regex(metrics, /^metalfleet_backend_calls_waiting\{backend="fixture:default",node="calls-node"\} 7$/m);
  t.regex(metrics, /^metalfleet_backend_calls_waited_total\{backend="fixture:default",node="calls-node"\} 7$/m);
});
