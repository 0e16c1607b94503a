// Hosts whose names share a long prefix (a MachineDeployment's `cluster-md-0-<hash>`, a rack's
// naming scheme) must stay told apart in every table that lists them: a name cut at a fixed
// width left every row reading `fleet/host-with-a-really-quite-extremel…`, so the operator could
// not say which host a row was, nor grep for it. The line is still cut at the terminal's width.
import test from 'ava';
import { createMemoryBus } from '../../src/bus/index.ts';
import { actorsView, hostsView, type ViewOptions } from '../../src/cli/introspect/index.ts';
import { serveIntrospection } from '../../src/cluster/introspect/index.ts';
import { bmh, secret, startTestNode } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';

const PREFIX = 'host-with-a-really-quite-extremely-long-name-for-column-widths';
const NAMES = [`${PREFIX}-a`, `${PREFIX}-b`, `${PREFIX}-c`];

test('introspect long names - hosts and actors tables show each long name whole, one row each', async (t) => {
  const { node, store } = await startTestNode({ fixture: { latencyMs: 1 } });
  const bus = createMemoryBus();
  const service = serveIntrospection(bus.connect('embedded'), node.introspection, { node: 'embedded' });
  const client = bus.connect('cli');
  // Piped output: the width the commands lay tables out in when stdout is not a terminal.
  const base: ViewOptions = { format: 'table', width: 120, timeoutMs: 2_000, natsUrl: 'memory', nodes: ['embedded'] };
  try {
    t.true((await store.applyObjects([secret('bmc', 'lab', { username: 'admin', password: 'Pw-long-names1' }), ...NAMES.map((n) => bmh(n, { image: false }))])).ok);
    for (const name of NAMES) {
      await waitUntil(async () => (await store.get(`lab/${name}`))?.status?.provisioning.state === 'available', 15_000, `lab/${name} available`);
    }

    const hosts = (await hostsView(client, {}, base)).stdout.split('\n').filter(Boolean);
    t.log(hosts.join('\n'));
    for (const name of NAMES) {
      const rows = hosts.filter((l) => l.startsWith(`lab/${name} `));
      t.is(rows.length, 1, `one hosts row names lab/${name}`);
      // The columns after the name still come, as far as the width lets them.
      t.regex(rows[0] ?? '', /^\S+ +bmh +fixture +available/);
    }
    t.true(hosts.every((l) => [...l].length <= base.width), 'no line is wider than the output');

    const actors = (await actorsView(client, {}, base)).stdout.split('\n').filter(Boolean);
    t.log(actors.join('\n'));
    for (const name of NAMES) {
      t.is(actors.filter((l) => new RegExp(`/lab~${name} `).test(l)).length, 1, `one actors row for lab~${name}`);
    }
    const tree = (await actorsView(client, { tree: true }, base)).stdout.split('\n').filter(Boolean);
    for (const name of NAMES) {
      t.is(tree.filter((l) => l.includes(`lab~${name} `)).length, 1, `one --tree row for lab~${name}`);
    }
  } finally {
    await service.close();
    await node.stop();
  }
});
