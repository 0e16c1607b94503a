// The shipped StatefulSet names its nodes after their pods: metalfleet-controller-0, -1, -2 (23
// characters). The NODE column was cut at 20 (10 in `top`), so every row of `hosts`, `actors`,
// `capacity` and `top` read `metalfleet-controll…` (`metalfleet…`) whichever node drove it: the
// column that says where to look told nothing. Node names are now shown whole.
import test from 'ava';
import { createMemoryBus } from '../../src/bus/index.ts';
import type { ActorRow, HostRow, PoolRow } from '../../src/bus/messages/introspect.ts';
import { actorsView, capacityView, hostsView, renderFrame, sampleTop, type ViewOptions } from '../../src/cli/introspect/index.ts';
import { serveIntrospection } from '../../src/cluster/introspect/index.ts';
import type { IntrospectionSource } from '../../src/cluster/introspect/index.ts';
import type { Transport } from '../../src/ports/index.ts';

const NODES = ['metalfleet-controller-0', 'metalfleet-controller-1', 'metalfleet-controller-2'];

const hostRow = (key: string, shard: number): HostRow => ({
  key, kind: 'BareMetalHost', backend: 'fixture', state: 'provisioned', poweredOn: true, operationalStatus: 'OK', errorType: '', shard, stateSinceMs: 1_000,
});
const actorRow = (path: string): ActorRow => ({ path, kind: 'host', parent: null, mailboxDepth: 0, highWater: 1, processed: 3, restarts: 0, lastError: null, busy: false });
const pool: PoolRow = { pool: 'fixture:default', limit: 2, inUse: [], waiting: [], longestWaitMs: 0 };

function cluster(t: { teardown(f: () => Promise<unknown>): void }): Transport {
  const bus = createMemoryBus();
  const services = NODES.map((node, i) => serveIntrospection(bus.connect(node), {
    hosts: async () => [hostRow(`lab/h-${i}`, i)],
    actors: async () => [actorRow(`/shard-${i}-e1/lab~h-${i}`)],
    capacity: async () => ({ broker: i === 2, pools: i === 2 ? [pool] : [], calls: [{ backend: 'fixture:default', limit: null, inFlight: 0, waiting: 0, longestWaitMs: 0, slotHolderInFlight: 0, maxInFlight: 1, waitedTotal: 0 }] }),
    close: () => undefined,
  } as unknown as IntrospectionSource, { node }));
  t.teardown(() => Promise.all(services.map((s) => s.close())));
  return bus.connect('cli');
}

test('introspect node names - hosts, actors, capacity and top name each node whole', async (t) => {
  const client = cluster(t);
  const base: ViewOptions = { format: 'table', width: 120, timeoutMs: 2_000, natsUrl: 'memory', nodes: NODES };
  const hosts = (await hostsView(client, {}, base)).stdout.split('\n');
  const actors = (await actorsView(client, {}, base)).stdout.split('\n');
  const capacity = (await capacityView(client, base)).stdout.split('\n');
  t.log([...hosts, ...actors, ...capacity].join('\n'));
  NODES.forEach((node, i) => {
    t.regex(hosts.find((l) => l.startsWith(`lab/h-${i} `)) ?? '', new RegExp(` ${node} `), `hosts row of lab/h-${i}`);
    t.regex(actors.find((l) => l.startsWith(`/shard-${i}-e1/`)) ?? '', new RegExp(` ${node} `), `actors row of node ${node}`);
    t.is(capacity.filter((l) => new RegExp(`^fixture:default +${node} `).test(l)).length, 1, `calls row of ${node}`);
  });
  t.regex(capacity.find((l) => l.startsWith('fixture:default ')) ?? '', / metalfleet-controller-2 /, 'the broker named whole');

  const frame = renderFrame(await sampleTop(client, { timeoutMs: 2_000, nodes: NODES }), { width: 80, height: 24, sort: 'depth', filter: '' });
  t.log(frame.join('\n'));
  NODES.forEach((node, i) => t.regex(frame.find((l) => l.startsWith(`/shard-${i}-e1/`)) ?? '', new RegExp(` ${node}$`), `top row of ${node}`));
  t.true(frame.every((l) => [...l].length <= 80));
});
