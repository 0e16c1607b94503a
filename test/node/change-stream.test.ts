// One change stream for every kind (issue 29.3): a BareMetalHost, a MaasMachine and a MaasCluster
// run side by side on one node, and each reports its transitions through the node's one stream,
// which fleet stats, /metrics, `hosts` and `top` read alike.
import test from 'ava';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { createMaasClient } from '../../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../../src/adapters/maas/driver/index.ts';
import type { MachineChange } from '../../src/actors/machine/index.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import { sampleTop } from '../../src/cli/introspect/index.ts';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import { serveIntrospection } from '../../src/cluster/introspect/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { startLocalNode } from '../support/local-node.ts';
import { maasReady, openLocalStoreWithMaas } from '../support/maas-node.ts';
import { bmh, secret } from '../support/node.ts';
import { waitFor, waitUntil } from '../support/wait.ts';

const HOST = 'lab/h1';
const MACHINE = 'capi/cs-worker-0';
const CLUSTER = 'capi/cs';

/** Each report's from is the previous report's to: the stream skips and repeats nothing. */
function chained(changes: readonly MachineChange[]): boolean {
  return changes.every((c, i) => i === 0 ? c.from === null : c.from === changes[i - 1]?.to);
}

test('change stream - a BareMetalHost, a MaasMachine and a MaasCluster on one node report their transitions through one stream, which stats, /metrics, hosts and top read alike', async (t) => {
  const sim = await startMaasSim({ deployMs: 50, releaseMs: 50 });
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey });
  const substrate = memorySubstrate();
  const hosts = await openLocalStoreWithMaas(substrate.transport);
  const objects = hosts.objects;
  const node = await startLocalNode({
    name: 'stream-node', shardCount: 8, healthPort: 0, machine: DEFAULT_MACHINE_CONFIG,
    capacity: { limits: {}, defaultLimit: 50, ttlMs: 30_000 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 5, maxMs: 20 } }, askTimeoutMs: 5_000,
  }, { store: hosts.resources, secrets: hosts.secrets }, {
    provisioner: createFixtureProvisioner({ latencyMs: 1, demoBehaviours: false }),
    maas: { driver: createMaasDriver(client), clusterResyncMs: 200, config: { deployingPollMs: 30, steadyPollMs: 100, powerOnRequeueMs: 100, backoffBaseMs: 50, backoffMaxMs: 500 } },
  }, {}, substrate);
  const bus = createMemoryBus();
  const server = bus.connect('embedded');
  const cli = bus.connect('top');
  const service = serveIntrospection(server, node.introspection, { node: 'embedded' });
  const seen: Array<MachineChange & { shard: number }> = [];
  const unsubscribe = node.shards.changes.subscribe((change, shard) => seen.push({ ...change, shard }));
  t.teardown(async () => {
    unsubscribe();
    await service.close();
    await cli.close();
    await server.close();
    await node.stop();
    await objects.close();
    client.close();
    await sim.stop();
  });

  // Everything is applied once the node runs and the test listens: every report is seen.
  t.true((await hosts.applyObjects([secret(), bmh('h1'), ...generateMaasCluster({ cluster: 'cs', controlPlane: 0, workers: 1 })])).ok);
  await waitFor(() => node.stats.hosts.get(HOST)?.state === 'provisioned', 30_000, 'the host provisioned');
  await waitUntil(() => maasReady(objects, MACHINE), 30_000, 'the MaasMachine ready');
  await waitFor(() => node.stats.of('MaasMachine').objects.get(MACHINE)?.state === 'Deployed', 10_000, 'the MaasMachine Deployed in the stats');

  const of = (kind: string, key: string): Array<MachineChange & { shard: number }> => seen.filter((c) => c.kind === kind && c.key === key);
  const host = of('BareMetalHost', HOST);
  const machine = of('MaasMachine', MACHINE);
  const cluster = of('MaasCluster', CLUSTER);
  // Each kind's reports, in order, from the first look (from null) on, each from where the last left.
  t.true(chained(host), JSON.stringify(host.map((c) => [c.from, c.to])));
  t.true(chained(machine), JSON.stringify(machine.map((c) => [c.from, c.to])));
  t.true(cluster.length > 0 && chained(cluster), JSON.stringify(cluster.map((c) => [c.from, c.to])));
  const moves = (changes: readonly MachineChange[]): string[] => changes.filter((c) => c.from !== null && c.from !== c.to).map((c) => `${c.from} -> ${c.to}`);
  t.true(moves(host).includes('provisioning -> provisioned'), moves(host).join(', '));
  t.is(host.at(-1)?.to, 'provisioned');
  t.true(moves(machine).some((m) => m.endsWith('-> Deployed')), moves(machine).join(', '));
  t.is(machine.at(-1)?.to, 'Deployed');
  t.is(machine.at(-1)?.view.operationalStatus, 'OK');
  // A MaasMachine lives in its cluster's shard, and its reports say so.
  t.is(machine[0]?.shard, cluster[0]?.shard);

  // Fleet stats: both kinds, counted by state, their transitions as the stream carried them.
  t.is(node.stats.of('BareMetalHost').count('provisioned'), 1);
  t.is(node.stats.of('MaasMachine').count('Deployed'), 1);
  t.is(node.stats.of('MaasMachine').transitions, moves(machine).length);
  t.is(node.stats.of('BareMetalHost').transitions, moves(host).length);

  // /metrics: per-kind state gauges and transition counters, labelled by kind.
  const body = await (await fetch(`${node.health?.url ?? ''}/metrics`)).text();
  t.regex(body, /^metalfleet_machines\{kind="BareMetalHost",state="provisioned",node="stream-node"\} 1$/m);
  t.regex(body, /^metalfleet_machines\{kind="MaasMachine",state="Deployed",node="stream-node"\} 1$/m);
  t.regex(body, /^metalfleet_machine_transitions_total\{kind="BareMetalHost",from="provisioning",to="provisioned",node="stream-node"\} 1$/m);
  t.regex(body, /^metalfleet_machine_transitions_total\{kind="MaasMachine",from="[^"]+",to="Deployed",node="stream-node"\} 1$/m);
  // A MaasCluster counts by its phase: no DNS name or address count in a label.
  t.regex(body, /^metalfleet_machines\{kind="MaasCluster",state="[a-z-]+",node="stream-node"\} 1$/m);
  t.regex(body, /^metalfleet_maas_machines\{state="Deployed",node="stream-node"\} 1$/m);
  t.regex(body, /^metal3_provisioning_state_change_total\{prev_state="provisioning",new_state="provisioned",node="stream-node"\} 1$/m);
  t.notRegex(body, /new_state="Deployed"/, 'BMO counts BareMetalHosts only');

  // `hosts` and `top`: the MaasMachine's row is its reported view, beside the host's.
  const rows = await node.introspection.hosts({});
  t.like(rows.find((r) => r.key === MACHINE), { kind: 'MaasMachine', backend: 'maas', state: 'Deployed', operationalStatus: 'OK', shard: machine[0]?.shard });
  t.like(rows.find((r) => r.key === HOST), { kind: 'BareMetalHost', state: 'provisioned' });
  // Asked by name: a memory bus has no membership to discover the node from.
  const top = await sampleTop(cli, { timeoutMs: 2_000, nodes: ['embedded'] });
  t.is(top.problem, undefined);
  t.is(top.hostsTotal, 2);
  t.deepEqual(top.states.filter(([state]) => state === 'Deployed' || state === 'provisioned').map(([state, n]) => `${state}=${n}`).sort(), ['Deployed=1', 'provisioned=1']);
});
