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
