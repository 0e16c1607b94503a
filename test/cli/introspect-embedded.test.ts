// The introspection commands' logic in-process: an embedded node answering over the memory bus,
// the command functions called with its transport, their text and JSON checked.
import test from 'ava';
import { parse } from 'yaml';
import { createMemoryBus } from '../../src/bus/index.ts';
import { actorsView, capacityView, hostsView, inspectView, nodesView, shardsView } from '../../src/cli/introspect/index.ts';
import type { ViewOptions } from '../../src/cli/introspect/index.ts';
import { serveIntrospection } from '../../src/cluster/introspect/index.ts';
import { startCommandServer } from '../../src/cluster/command-server.ts';
import { buildHostCommands, sendHostCommands } from '../../src/cli/commands/host.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { bmh, secret, startTestNode } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';

const PASSWORD = 'hunter2-Embedded7';

test('introspect views - capacity limit 5 with 20 hosts blocked: 5 in use, 15 waiting; hosts, actors, inspect agree', async (t) => {
  // Provisioning takes ten minutes: the hosts stay blocked on their slots while we look.
  const { node, store } = await startTestNode({ limit: 5, fixture: { latencyMs: { provision: 600_000 } } });
  const bus = createMemoryBus();
  const server = bus.connect('embedded');
  const client = bus.connect('cli');
  const source = node.introspection;
  const service = serveIntrospection(server, source, { node: 'embedded' });
  const base: ViewOptions = { format: 'table', width: 100, timeoutMs: 2_000, natsUrl: 'memory', nodes: ['embedded'] };
  try {
    const applied = await store.applyObjects([secret('bmc', 'lab', { username: 'admin', password: PASSWORD }), ...Array.from({ length: 20 }, (_, i) => bmh(`h-${i}`))]);
    t.true(applied.ok);
    type Cap = { replies: Array<{ node: string; value: { broker: boolean; pools: Array<{ limit: number | null; inUse: Array<{ operation: string }>; waiting: unknown[]; waitingCount?: number; stallSeconds?: number }> } }>; missing: string[] };
    await waitUntil(async () => {
      const out = await capacityView(client, { ...base, format: 'json' });
      const pool = (JSON.parse(out.stdout) as Cap).replies[0]?.value.pools[0];
      // Inspection takes a slot too and is quick: wait until the five holders are provisioning.
      return pool?.inUse.length === 5 && pool.waiting.length === 15 && pool.inUse.every((u) => u.operation === 'provision');
    }, 15_000, '5 slots in use for provisioning and 15 waiting');

    const json = await capacityView(client, { ...base, format: 'json' });
    t.is(json.exitCode, 0);
    t.deepEqual(json.stderr, []);
    const cap = JSON.parse(json.stdout) as Cap;
    t.deepEqual(cap.missing, []);
    t.is(cap.replies[0]!.value.pools[0]!.limit, 5);
    t.is(cap.replies[0]!.value.pools[0]!.inUse.length, 5);
    t.is(cap.replies[0]!.value.pools[0]!.waiting.length, 15);
    // YAML is the same data.
    t.deepEqual(parse((await capacityView(client, { ...base, format: 'yaml' })).stdout).replies[0].value.pools[0].waiting.length, 15);

    const table = (await capacityView(client, base)).stdout.split('\n');
    t.log(table.join('\n'));
    t.regex(table[0]!, /^POOL +LIMIT +IN USE +HOSTS +WAITING +LONGEST WAIT +STALLED +BROKER +OPERATIONS$/);
    // Nothing stalled: every free slot went to the next waiter.
    t.regex(table[1]!, /^fixture\S* +5 +5 +5 +15 +\S+ +0s +embedded +provision=5$/);
    t.is(cap.replies[0]!.value.pools[0]!.waitingCount, 15);
    t.is(cap.replies[0]!.value.pools[0]!.stallSeconds, 0);
    // Which hosts hold the slots, and the queue in order (the first ten of fifteen).
    const inUseAt = table.findIndex((l) => /^fixture\S*: in use$/.test(l));
    t.regex(table[inUseAt + 1]!, /^ {2}HOST +OPERATION +FOR$/);
    const holders = table.slice(inUseAt + 2, inUseAt + 7);
    t.true(holders.every((l) => /^ {2}lab\/h-\d+ +provision +\S+$/.test(l)), holders.join('\n'));
    const waitingAt = table.findIndex((l) => /^fixture\S*: waiting, next first$/.test(l));
    t.regex(table[waitingAt + 1]!, /^ {3}# +HOST +OPERATION +WAITING$/);
    // Waiters are the hosts' next operations: a provision, or an inspection not yet had (the
    // holders never let go, so which comes first depends on when each host asked).
    t.regex(table[waitingAt + 2]!, /^ {3}1 +lab\/h-\d+ +(provision|inspect) +\S+$/);
    t.regex(table[waitingAt + 11]!, /^ {2}10 +lab\/h-\d+ +(provision|inspect) +\S+$/);
    t.is(table[waitingAt + 12], '  … and 5 more (--json or -o yaml lists them all)');
    const listed = [...holders, ...table.slice(waitingAt + 2, waitingAt + 12)].map((l) => /lab\/h-\d+/.exec(l)![0]);
    t.is(new Set(listed).size, 15, 'no host both holds and waits, none twice');

    const hosts = await hostsView(client, {}, base);
    t.log(hosts.stdout);
    const rows = hosts.stdout.trim().split('\n');
    t.is(rows.length, 21);
    t.regex(rows[0]!, /^NAME +KIND +BACKEND +STATE +POWER +STATUS +SHARD +NODE +IN STATE +ERROR$/);
    t.is(rows.filter((r) => / provisioning /.test(r)).length, 5);
    for (const r of rows) t.true(r.length <= 100);
    const provisioning = await hostsView(client, { state: 'provisioning' }, { ...base, format: 'json' });
    t.is((JSON.parse(provisioning.stdout) as { replies: Array<{ value: { hosts: unknown[] } }> }).replies[0]!.value.hosts.length, 5);
    // Narrow terminal: truncated, never wrapped.
    for (const line of (await hostsView(client, {}, { ...base, width: 40 })).stdout.trim().split('\n')) t.true([...line].length <= 40, line);

    const actors = await actorsView(client, { tree: true }, base);
    t.regex(actors.stdout, /^PATH +KIND +MAILBOX +HIGH +PROCESSED +RESTARTS +STATE +NODE +LAST ERROR\n/);
    t.regex(actors.stdout, /\n {2}\S*h-3 +host /);
    t.regex((await shardsView(client, base)).stdout, /^SHARD +NODE +EPOCH +HOSTS +LEASE AGE +FENCE REFUSED\n/);

    const inspected = await inspectView(client, { host: 'lab/h-3', shardCount: 16 }, base);
    t.log(inspected.stdout);
    t.regex(inspected.stdout, /^host: +lab\/h-3 +\(BareMetalHost, backend fixture\)$/m);
    t.regex(inspected.stdout, /^owner: +node embedded, shard \d+/m);
    t.regex(inspected.stdout, /^slot: +(held for provision|waiting for provision since \S+)$/m);
    t.regex(inspected.stdout, /recent transitions/);
    t.false(inspected.stdout.includes(PASSWORD));
    await t.throwsAsync(inspectView(client, { host: 'lab/nope', shardCount: 16 }, base), { message: /^unknown host lab\/nope: / });

    // A node that does not answer: the table still comes, with a warning, exit 0.
    const partial = await hostsView(client, {}, { ...base, timeoutMs: 300, nodes: ['embedded', 'ghost'] });
    t.is(partial.exitCode, 0);
    t.deepEqual(partial.stderr, ['warning: no answer from node(s) ghost within 0.3s']);
    t.deepEqual((JSON.parse((await hostsView(client, {}, { ...base, format: 'json', timeoutMs: 300, nodes: ['embedded', 'ghost'] })).stdout) as { missing: string[] }).missing, ['ghost']);
    // Nobody answering: one error naming where nodes were looked for.
    await t.throwsAsync(nodesView(client, { ...base, timeoutMs: 300, nodes: undefined }), { message: 'no metalfleet node answered within 0.3s; is a node running with --nats memory?' });
  } finally {
    await service.close();
    source.close();
    await node.stop();
    await client.close();
    await server.close();
  }
});

test('cmd - the embedded node takes host commands over its in-process bus, as a cluster node does', async (t) => {
  const { node, store } = await startTestNode({ fixture: { latencyMs: 0 } });
  const bus = createMemoryBus();
  const server = bus.connect('embedded');
  const client = bus.connect('cli');
  const shardCount = 16;
  const commands = startCommandServer({ transport: server, store: store.resources, shardCount, log: silentLogger });
  try {
    t.true((await store.applyObjects([secret('bmc', 'lab', { username: 'admin', password: PASSWORD }), bmh('h-1'), bmh('h-2')])).ok);
    await waitUntil(async () => (await store.get('lab/h-1'))?.status?.provisioning.state === 'provisioned', 15_000, 'lab/h-1 provisioned');

    const outcomes = await sendHostCommands(client, buildHostCommands('power-off', ['lab/h-1', 'lab/nope'], {}), shardCount, 2_000);
    t.deepEqual(outcomes.map((o) => o.ok), [true, false]);
    t.regex(outcomes[0]!.line, /^lab\/h-1: .*power off/);
    t.regex(outcomes[1]!.line, /^lab\/nope: error notFound: /);
    t.false(outcomes.some((o) => o.line.includes(PASSWORD)));
    // Recorded as intent, then acted on by the host's actor: the fixture host goes off.
    t.is((await store.get('lab/h-1'))?.spec.online, false);
    await waitUntil(async () => (await store.get('lab/h-1'))?.status?.poweredOn === false, 15_000, 'lab/h-1 powered off');
    t.is((await store.get('lab/h-2'))?.spec.online, true, 'the other host is untouched');

    const reboot = await sendHostCommands(client, buildHostCommands('reboot', ['lab/h-2'], { mode: 'soft' }), shardCount, 2_000);
    t.true(reboot[0]!.ok, reboot[0]!.line);
    t.throws(() => buildHostCommands('power-off', ['lab/h-2'], { mode: 'hard' }), { message: '--mode applies to reboot only, not to power-off' });
  } finally {
    await commands.close();
    await node.stop();
    await client.close();
    await server.close();
  }
});
