// The node's /metrics: what each gauge reads from the node, read on every scrape.
import test from 'ava';
import { startHealthServer } from '../../src/adapters/observe/index.ts';

test('metrics - MaasMachines by state and stale-fence refusals are exported with the node label', async (t) => {
  let refusals = 0;
  const server = await startHealthServer({
    live: () => true,
    ready: () => ({ ready: true }),
    machines: () => new Map([
      ['BareMetalHost', { byState: new Map([['provisioned', 2]]), moves: new Map() }],
      ['MaasMachine', { byState: new Map([['Deployed', 3], ['Deploying', 1]]), moves: new Map() }],
    ]),
    staleFenceRefusals: () => refusals,
    shardsOwned: () => 4,
    mailboxDepth: () => new Map(),
  }, { port: 0, node: 'n1' });
  t.teardown(() => server.close());
  const scrape = async (): Promise<string> => (await fetch(`${server.url}/metrics`)).text();
  const first = await scrape();
  t.regex(first, /metalfleet_maas_machines\{state="Deployed",node="n1"\} 3/);
  t.regex(first, /metalfleet_maas_machines\{state="Deploying",node="n1"\} 1/);
  t.regex(first, /metalfleet_stale_fence_refusals\{node="n1"\} 0/);
  refusals = 5;
  t.regex(await scrape(), /metalfleet_stale_fence_refusals\{node="n1"\} 5/);
});

// Two Prometheus replicas (an HA pair) scrape every target at about the same time: a counter
// rebuilt from the broker's figures must read the same whichever scrapes overlap.
test('metrics - scrapes that overlap each read metalfleet_capacity_stall_seconds_total once, not once per scrape in flight', async (t) => {
  let answer!: (pools: Array<{ pool: string; inUse: number; waiting: number; stallSeconds: number }>) => void;
  const server = await startHealthServer({
    live: () => true,
    ready: () => ({ ready: true }),
    machines: () => new Map(),
    shardsOwned: () => 0,
    mailboxDepth: () => new Map(),
    // The broker answers once both scrapes are asking.
    capacityPools: () => new Promise((resolve) => { answer = resolve; }),
  }, { port: 0, node: 'n1' });
  t.teardown(() => server.close());
  const scrapes = [server.registry.metrics(), server.registry.metrics()];
  answer([{ pool: 'ironic:http://ironic:6385', inUse: 1, waiting: 2, stallSeconds: 5 }]);
  for (const text of await Promise.all(scrapes)) {
    t.regex(text, /metalfleet_capacity_stall_seconds_total\{pool="ironic:http:\/\/ironic:6385",node="n1"\} 5\n/);
    t.regex(text, /metalfleet_capacity_waiting\{pool="ironic:http:\/\/ironic:6385",node="n1"\} 2\n/);
  }
});
