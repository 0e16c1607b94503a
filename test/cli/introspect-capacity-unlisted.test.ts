// `metalfleet capacity` on a pool with more slots in use than the broker lists (it sends its first
// 200 holders and the exact count): the summary has the count, and the list under it said nothing
// of the holders it left out, so 200 lines read as every slot in use.
import test from 'ava';
import { createMemoryBus } from '../../src/bus/index.ts';
import { capacityView } from '../../src/cli/introspect/index.ts';
import type { ViewOptions } from '../../src/cli/introspect/index.ts';
import { serveIntrospection } from '../../src/cluster/introspect/index.ts';
import { bmh, secret, startTestNode } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';

test('introspect capacity - a pool listing fewer holders than slots in use says how many it leaves out', async (t) => {
  const HOSTS = 230;
  const hosts = Array.from({ length: HOSTS }, (_, i) => bmh(`big-${String(i).padStart(3, '0')}`));
  // Inspection takes long: every host holds an inspect slot while we look.
  const { node } = await startTestNode({ objects: [secret(), ...hosts], fixture: { latencyMs: { inspect: 30_000 } }, limit: 1_000 });
  const bus = createMemoryBus();
  const service = serveIntrospection(bus.connect('embedded'), node.introspection, { node: 'embedded' });
  const client = bus.connect('cli');
  const base: ViewOptions = { format: 'table', width: 160, timeoutMs: 2_000, natsUrl: 'memory', nodes: ['embedded'] };
  try {
    type Cap = { replies: Array<{ value: { pools: Array<{ inUse: unknown[]; inUseCount?: number }> } }> };
    let listed = 0;
    await waitUntil(async () => {
      const pool = (JSON.parse((await capacityView(client, { ...base, format: 'json' })).stdout) as Cap).replies[0]?.value.pools[0];
      listed = pool?.inUse.length ?? 0;
      return pool?.inUseCount === HOSTS;
    }, 60_000, `all ${HOSTS} hosts holding a slot`);
    t.true(listed < HOSTS, `the broker lists ${listed} of ${HOSTS} holders`);

    const table = (await capacityView(client, base)).stdout.split('\n');
    t.regex(table[1]!, new RegExp(`^fixture\\S* +1000 +${HOSTS} +`));
    const inUseAt = table.findIndex((l) => /^fixture\S*: in use$/.test(l));
    const holders = table.slice(inUseAt + 2).filter((l) => /^ {2}lab\/big-\d+ /.test(l));
    t.is(holders.length, listed);
    t.is(table[inUseAt + 2 + listed], `  … and ${HOSTS - listed} more (the broker lists its first ${listed} holders)`);
  } finally {
    await service.close();
    await node.stop();
  }
});

// Before any host asked for a slot, the table said "no pools in use" on stdout, where hosts and
// shards (as kubectl) say an empty listing on stderr: a pipe counted it as a pool row.
test('introspect capacity - no pool in use yet: no pool rows on stdout, the line on stderr; JSON says it by its empty list', async (t) => {
  const { node } = await startTestNode({ objects: [secret()] });
  const bus = createMemoryBus();
  const service = serveIntrospection(bus.connect('embedded'), node.introspection, { node: 'embedded' });
  const client = bus.connect('cli');
  const base: ViewOptions = { format: 'table', width: 160, timeoutMs: 2_000, natsUrl: 'memory', nodes: ['embedded'] };
  try {
    const out = await capacityView(client, base);
    t.deepEqual(out.stderr, ['No pools in use yet (no host has asked for a slot)']);
    t.false(/^POOL /m.test(out.stdout), out.stdout);
    t.false(/no pools in use/i.test(out.stdout));
    t.is(out.exitCode, 0);
    const json = await capacityView(client, { ...base, format: 'json' });
    t.deepEqual(json.stderr, []);
    t.deepEqual((JSON.parse(json.stdout) as { replies: Array<{ value: { pools: unknown[] } }> }).replies[0]?.value.pools, []);
  } finally {
    await service.close();
    await node.stop();
  }
});
