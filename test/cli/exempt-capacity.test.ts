// A pool where many holders are exempt from its limit (virtual-media hosts, as in BMO): the reply
// counted them with the bounded ones, so `metalfleet capacity` and `top` showed more slots in use
// than the limit allows (8/3). Both now show the bounded count against the limit and the exempt
// ones beside it, from counts the node sends.
import test from 'ava';
import { createMemoryBus } from '../../src/bus/index.ts';
import { capacityView, renderFrame, summarize } from '../../src/cli/introspect/index.ts';
import type { ViewOptions } from '../../src/cli/introspect/index.ts';
import { gather, serveIntrospection } from '../../src/cluster/introspect/index.ts';
import { bmh, secret, startTestNode } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';

const BOUNDED = 3;
const EXEMPT = 5;
const LIMIT = 3;

test('capacity - exempt holders are counted beside the limit, not against it, in capacity and top', async (t) => {
  const plain = Array.from({ length: BOUNDED + 2 }, (_, i) => bmh(`plain-${i}`));
  const media = Array.from({ length: EXEMPT }, (_, i) => bmh(`media-${i}`, { address: `redfish-virtualmedia://10.0.1.${i + 1}/redfish/v1/Systems/1` }));
  // Inspection takes long: every host that got a slot holds it while we look; two plain ones wait.
  const { node } = await startTestNode({ objects: [secret(), ...plain, ...media], fixture: { latencyMs: { inspect: 30_000 } }, limit: LIMIT });
  const bus = createMemoryBus();
  const service = serveIntrospection(bus.connect('embedded'), node.introspection, { node: 'embedded' });
  const client = bus.connect('cli');
  const base: ViewOptions = { format: 'table', width: 160, timeoutMs: 2_000, natsUrl: 'memory', nodes: ['embedded'] };
  try {
    type Pool = { inUse: Array<{ exempt?: boolean }>; inUseCount?: number; boundedCount?: number; exemptCount?: number };
    let pool: Pool | undefined;
    await waitUntil(async () => {
      pool = (JSON.parse((await capacityView(client, { ...base, format: 'json' })).stdout) as { replies: Array<{ value: { pools: Pool[] } }> }).replies[0]?.value.pools[0];
      return pool?.inUseCount === BOUNDED + EXEMPT;
    }, 60_000, `${BOUNDED + EXEMPT} slots in use`);
    t.is(pool?.boundedCount, BOUNDED, 'the reply counts the slots the limit bounds');
    t.is(pool?.exemptCount, EXEMPT, 'and the exempt ones');
    t.is(pool?.inUse.filter((u) => u.exempt === true).length, EXEMPT);

    const table = (await capacityView(client, base)).stdout.split('\n');
    t.regex(table[0]!, /^POOL +LIMIT +IN USE +HOSTS +WAITING/);
    // LIMIT has its own column: IN USE beside it is the bounded count, the exempt ones after it.
    t.regex(table[1]!, new RegExp(`^fixture\\S* +${LIMIT} +${BOUNDED} \\(\\+${EXEMPT} exempt\\) +${BOUNDED + EXEMPT} +2 +`));

    const capacity = await gather(client, 'capacity', {}, { nodes: ['embedded'], timeoutMs: 2_000 });
    const pools = capacity.replies.flatMap((r) => r.value.pools.map((p) => ({ ...p, node: r.node })));
    const data = summarize({ at: Date.now(), nodes: ['embedded'], missing: [], hosts: [], actors: [], pools });
    const frame = renderFrame(data, { width: 120, height: 30, sort: 'depth', filter: '' });
    const line = frame.find((l) => /^ {2}fixture/.test(l)) ?? '';
    t.regex(line, new RegExp(`\\[#{20}\\] ${BOUNDED}/${LIMIT} \\(\\+${EXEMPT} exempt\\) in use  2 waiting`), line);
  } finally {
    await service.close();
    await node.stop();
  }
});

test('capacity - a reply from an older node without the counts shows the exempt holders it lists beside the limit', async (t) => {
  const pool = {
    pool: 'old', node: 'n1', limit: 2, longestWaitMs: 0,
    inUse: [
      { holder: 'lab/a', operation: 'inspect', sinceMs: 1 },
      { holder: 'lab/b', operation: 'inspect', sinceMs: 1, exempt: true },
      { holder: 'lab/c', operation: 'inspect', sinceMs: 1, exempt: true },
      { holder: 'lab/d', operation: 'inspect', sinceMs: 1, exempt: true },
    ],
    waiting: [], inUseCount: 4, waitingCount: 0,
  };
  const data = summarize({ at: Date.now(), nodes: ['n1'], missing: [], hosts: [], actors: [], pools: [pool] });
  const line = renderFrame(data, { width: 120, height: 30, sort: 'depth', filter: '' }).find((l) => /^ {2}old/.test(l)) ?? '';
  t.regex(line, / 1\/2 \(\+3 exempt\) in use {2}0 waiting/, line);
  const none = summarize({ at: Date.now(), nodes: ['n1'], missing: [], hosts: [], actors: [], pools: [{ ...pool, inUse: pool.inUse.slice(0, 1), inUseCount: 1 }] });
  const plainLine = renderFrame(none, { width: 120, height: 30, sort: 'depth', filter: '' }).find((l) => /^ {2}old/.test(l)) ?? '';
  t.regex(plainLine, / 1\/2 in use {2}0 waiting/, 'no exempt part when none is exempt');
});
