// Host commands are taken by any node: every node's command server joins one queue group on the
// wildcard command subject, records the intent in the shared store and answers once it is
// written. Nothing here owns a shard — there are no leases at all — and commands are answered.
import test from 'ava';
import { shardOf } from '../../src/api/index.ts';
import { hostKvKey } from '../../src/adapters/store/nats-keys.ts';
import { NATS_HOSTS_BUCKET, NATS_STATUS_BUCKET, openNatsStore, openNatsStoreOn, type NatsStore } from '../../src/adapters/store/nats-store.ts';
import { createMemoryBus, decode, encode, RemoteError, replyEnvelope, subjects } from '../../src/bus/index.ts';
import { HostCommandReply } from '../../src/bus/messages/index.ts';
import { sendCommand } from '../../src/cluster/command-client.ts';
import { startCommandServer, type CommandServer } from '../../src/cluster/command-server.ts';
import { BusError, silentLogger, type KvBucket, type KvEvent, type Transport } from '../../src/ports/index.ts';
import type { HostEvent } from '../../src/adapters/store/host-records.ts';
import { waitFor, waitUntil } from '../support/wait.ts';
import { kvRecord } from '../support/local-store.ts';
import { wrappedBucket } from '../support/wrapped-bucket.ts';

const SHARDS = 16;
const HOSTS = 12;

function host(name: string): Record<string, unknown> {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name, namespace: 'fleet' },
    spec: { online: true, bmc: { address: 'redfish://192.0.2.1/redfish/v1/Systems/1', credentialsName: `${name}-bmc` } },
  };
}

interface Node {
  readonly name: string;
  readonly transport: Transport;
  readonly store: NatsStore;
  readonly commands: CommandServer;
}

/** Two nodes on one in-memory bus, each with its own store over the shared KV and a command server. */
async function twoNodes(t: { teardown(fn: () => Promise<void> | void): void }): Promise<{ nodes: Node[]; client: Transport; keys: string[]; bus: ReturnType<typeof createMemoryBus> }> {
  const bus = createMemoryBus();
  const nodes: Node[] = [];
  for (const name of ['a', 'b']) {
    const transport = bus.connect(name);
    const store = await openNatsStoreOn(transport);
    const commands = startCommandServer({ transport, store: store.resources, shardCount: SHARDS, log: silentLogger });
    nodes.push({ name, transport, store, commands });
  }
  const client = bus.connect('cli');
  t.teardown(async () => {
    for (const n of nodes) {
      await n.commands.close();
      await n.store.close();
      await n.transport.close();
    }
    await client.close();
  });
  const keys = Array.from({ length: HOSTS }, (_, i) => `fleet/h-${i}`);
  const applied = await nodes[0]!.store.apply(keys.map((k) => host(k.split('/')[1]!)), 'test');
  if (!applied.ok) throw new Error(JSON.stringify(applied.issues));
  // The other node's store sees the hosts through its watch of the bucket.
  await waitUntil(async () => (await nodes[1]!.store.list()).length === HOSTS, 2_000, 'node b sees the hosts');
  return { nodes, client, keys, bus };
}

/** spec.online as the KV bucket holds it now: what survives every node. */
async function durableOnline(client: Transport, key: string): Promise<unknown> {
  const bucket = await client.kv(NATS_HOSTS_BUCKET);
  const entry = await bucket.get(hostKvKey(key));
  if (!entry) return undefined;
  return (kvRecord(entry.value) as { spec: { online?: unknown } }).spec.online;
}

test('commands - any node answers: no shard is owned, each command is handled once and durable before its reply', async (t) => {
  const { nodes, client, keys } = await twoNodes(t);
  for (const [i, key] of keys.entries()) {
    const reply = await sendCommand(client, { type: 'powerOff', host: key, requestId: `off-${i}` }, { shardCount: SHARDS, timeoutMs: 1_000, deadlineMs: 1_000 });
    t.like(reply, { host: key, command: 'powerOff', applied: true });
    // Written before the reply: read straight from the bucket, no node's cache in between.
    t.is(await durableOnline(client, key), false, `${key} spec.online false in the bucket when the reply came`);
  }
  const served = nodes.map((n) => n.commands.stats().served);
  t.is(served[0]! + served[1]!, HOSTS, 'every command handled by exactly one node');
  t.true(served.every((s) => s > 0), `both nodes took commands (${served.join(' / ')})`);

  // A repeat changes nothing, whichever node takes it.
  for (const key of keys.slice(0, 4)) {
    const again = await sendCommand(client, { type: 'powerOff', host: key }, { shardCount: SHARDS, timeoutMs: 1_000, deadlineMs: 1_000 });
    t.false(again.applied);
  }
  t.is(nodes.reduce((n, node) => n + node.commands.stats().served, 0), HOSTS + 4);
});

test('commands - concurrent commands from many senders: each answered once, none lost', async (t) => {
  const { nodes, client, keys } = await twoNodes(t);
  const replies = await Promise.all(keys.flatMap((key, i) => [
    sendCommand(client, { type: 'pause', host: key, requestId: `p-${i}` }, { shardCount: SHARDS, timeoutMs: 2_000, deadlineMs: 2_000 }),
    sendCommand(client, { type: 'powerOff', host: key, requestId: `o-${i}` }, { shardCount: SHARDS, timeoutMs: 2_000, deadlineMs: 2_000 }),
  ]));
  t.is(replies.length, HOSTS * 2);
  t.true(replies.every((r) => r.applied), 'two different intents per host: both recorded (compare-and-set across nodes)');
  t.is(nodes.reduce((n, node) => n + node.commands.stats().served, 0), HOSTS * 2);
  for (const key of keys) {
    const stored = await nodes[0]!.store.get(key);
    t.is(stored?.spec.online, false);
    t.is(stored?.metadata.annotations?.['baremetalhost.metal3.io/paused'], '');
  }
});

test('commands - a node that stops taking commands leaves no gap; the owner learns the intent from its store watch', async (t) => {
  const { nodes, client, keys } = await twoNodes(t);
  const [a, b] = [nodes[0]!, nodes[1]!];
  const key = keys[0]!;
  // Node a stands in for the shard's owner: it acts on what its store's watch delivers.
  const seen: HostEvent[] = [];
  a.store.watch((e) => seen.push(e), { keys: (k) => k === key });
  await a.commands.close();
  for (let i = 0; i < 5; i++) {
    const reply = await sendCommand(client, { type: i % 2 === 0 ? 'powerOff' : 'powerOn', host: key, requestId: `r-${i}` }, { shardCount: SHARDS, timeoutMs: 1_000, deadlineMs: 1_000 });
    t.true(reply.applied);
  }
  t.is(b.commands.stats().served, 5, 'the other node took every one');
  await waitFor(() => seen.filter((e) => e.type === 'upsert').length >= 5, 2_000, 'the owner saw the five intents');
  const last = seen.at(-1);
  t.true(last?.type === 'upsert' && last.host.spec.online === false);

  // Nobody at all: the client is told there are no responders once its deadline passes.
  await b.commands.close();
  const none = await sendCommand(client, { type: 'powerOn', host: key }, { shardCount: SHARDS, timeoutMs: 100, deadlineMs: 300 }).catch((e: unknown) => e);
  t.true(none instanceof BusError, String(none));
  t.is((none as BusError).kind, 'noResponders');
});

test('commands - a command on another shard\'s subject is refused, naming the right one; errors keep their codes', async (t) => {
  const { nodes, client, keys } = await twoNodes(t);
  const s = subjects();
  const key = keys[1]!;
  const home = shardOf(key, SHARDS);
  const envelope = replyEnvelope(HostCommandReply);
  for (const subject of [s.command((home + 1) % SHARDS), 'mf.cmd.x', `mf.cmd.0${home}`]) {
    const raw = await client.request(subject, encode({ type: 'powerOff', host: key }), { timeoutMs: 1_000 });
    const decoded = decode(subject, raw, envelope);
    t.true(decoded.ok);
    if (!decoded.ok || decoded.value.ok) {
      t.fail(`${subject}: expected a refusal`);
      continue;
    }
    t.is(decoded.value.error.kind, 'invalid');
    t.true(decoded.value.error.message.includes(`publish on ${s.command(home)}`), decoded.value.error.message);
  }
  t.is(await durableOnline(client, key), true, 'nothing was recorded');

  const missing = await sendCommand(client, { type: 'powerOn', host: 'fleet/nope' }, { shardCount: SHARDS, deadlineMs: 1_000 }).catch((e: unknown) => e);
  t.true(missing instanceof RemoteError);
  t.is((missing as RemoteError).kind, 'notFound');
  t.is(nodes.reduce((n, node) => n + node.commands.stats().rejected + node.commands.stats().failed, 0), 0);
});

test('commands - a client that counts shards differently (metalfleet host without --shards) is told the cluster\'s shard count and how to give it', async (t) => {
  const { client, keys } = await twoNodes(t);
  // The CLI's default is 256 shards; this cluster runs 16. Find a host whose shard differs.
  const key = keys.find((k) => shardOf(k, 256) !== shardOf(k, SHARDS))!;
  const refused = await sendCommand(client, { type: 'powerOff', host: key }, { shardCount: 256, deadlineMs: 1_000 }).catch((e: unknown) => e);
  t.true(refused instanceof RemoteError, String(refused));
  const { kind, message } = refused as RemoteError;
  t.is(kind, 'invalid');
  t.true(message.includes(`publish on ${subjects().command(shardOf(key, SHARDS))}`), message);
  // What an operator can act on: how many shards the cluster has, and the flag that says so.
  t.true(message.includes(`${SHARDS} shards`), message);
  t.true(message.includes(`give the client --shards ${SHARDS} (metalfleet host, ui)`), message);
  t.true(message.includes(`METALFLEET_SHARDS=${SHARDS}`), message);
  t.is(await durableOnline(client, key), true, 'nothing was recorded');
});

/** A bucket whose watch can be held back: a node whose cache lags the others' writes. */
function laggingWatch(bucket: KvBucket): { bucket: KvBucket; hold(): void; release(): void } {
  let held: KvEvent[] | null = null;
  let deliver: ((e: KvEvent) => void) | null = null;
  const lagging = wrappedBucket(bucket, {
    watch: (o) => {
      deliver = o.onEvent;
      return bucket.watch({ ...o, onEvent: (e) => (held ? held.push(e) : o.onEvent(e)) });
    },
  });
  return {
    bucket: lagging,
    hold: () => (held = []),
    release: () => {
      const events = held ?? [];
      held = null;
      for (const e of events) deliver?.(e);
    },
  };
}

test('commands - a node whose cache lags decides "already done" on the stored host, so no command is lost', async (t) => {
  const bus = createMemoryBus();
  const ta = bus.connect('a');
  const tb = bus.connect('b');
  const client = bus.connect('cli');
  const a = await openNatsStoreOn(ta);
  const specs = laggingWatch(await tb.kv(NATS_HOSTS_BUCKET));
  const b = await openNatsStore({ specs: specs.bucket, status: await tb.kv(NATS_STATUS_BUCKET) });
  const serverA = startCommandServer({ transport: ta, store: a.resources, shardCount: SHARDS, log: silentLogger });
  const serverB = startCommandServer({ transport: tb, store: b.resources, shardCount: SHARDS, log: silentLogger });
  t.teardown(async () => {
    await serverA.close();
    await serverB.close();
    await a.close();
    await b.close();
    await Promise.all([ta.close(), tb.close(), client.close()]);
  });
  const paused = { ...host('h-0'), metadata: { name: 'h-0', namespace: 'fleet', annotations: { 'baremetalhost.metal3.io/paused': '' } } };
  t.true((await a.apply([paused], 'test')).ok);
  await waitUntil(async () => (await b.get('fleet/h-0')) !== undefined, 2_000, 'b has the host');

  // b stops hearing changes; a takes an unpause, then b (a stops answering) a pause.
  specs.hold();
  await serverA.close();
  const send = (type: 'pause' | 'unpause') => sendCommand(client, { type, host: 'fleet/h-0' }, { shardCount: SHARDS, timeoutMs: 1_000, deadlineMs: 1_000 });
  await a.applyIntent('fleet/h-0', { annotations: { 'baremetalhost.metal3.io/paused': null } });
  t.is((await b.get('fleet/h-0'))?.metadata.annotations?.['baremetalhost.metal3.io/paused'], '', 'b\'s cache still says paused');
  const reply = await send('pause');
  t.true(reply.applied, reply.message);
  t.is((await a.getFresh('fleet/h-0'))?.metadata.annotations?.['baremetalhost.metal3.io/paused'], '');
  specs.release();
});

test('subjects - the command wildcard and the shard of a command subject', (t) => {
  const s = subjects('prod');
  t.is(s.commands, 'prod.cmd.*');
  t.is(s.commandShard(s.command(0)), 0);
  t.is(s.commandShard(s.command(255)), 255);
  for (const bad of ['prod.cmd.', 'prod.cmd.-1', 'prod.cmd.01', 'prod.cmd.1.2', 'mf.cmd.1', 'prod.cmd.1e3', 'prod.cmd.x']) t.is(s.commandShard(bad), null, bad);
});
