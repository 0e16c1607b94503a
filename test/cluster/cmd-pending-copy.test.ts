// A copy of a command whose first attempt is still being recorded is not told it was done. The
// client retries an attempt that timed out (2 s) with the same request id, and a slow store (a
// JetStream leader election while a node stops) is what makes an attempt time out: the retry,
// taken by another node, was answered "already taken ... nothing more was done" (applied: false,
// exit 0) while the first attempt was still writing. When that write then failed (retryably, so
// its id was freed) the command was never recorded, and `metalfleet host` had said it was.
import test, { type ExecutionContext } from 'ava';
import { shardOf } from '../../src/api/index.ts';
import { createMemoryBus, decode, encode, replyEnvelope } from '../../src/bus/index.ts';
import { HostCommandReply } from '../../src/bus/messages/index.ts';
import { openNatsStoreOn, type NatsStore } from '../../src/adapters/store/nats-store.ts';
import { sendCommand } from '../../src/cluster/command-client.ts';
import { startCommandServer, type CommandServer } from '../../src/cluster/command-server.ts';
import { kvRequestLedger, openRequestLedger, PENDING_STALE_MS, REQUEST_BUCKET } from '../../src/cluster/request-ledger.ts';
import { StoreError, silentLogger, type ResourceStore, type Transport } from '../../src/ports/index.ts';
import { waitFor } from '../support/wait.ts';

const SHARDS = 16;
const envelope = replyEnvelope(HostCommandReply);

type Gate = { entered: Promise<void>; release: (fail: boolean) => void };

/** Stores whose next applyIntent (on any node) waits for the test, then fails retryably or goes on. */
function heldStores(): { wrap: (store: ResourceStore) => ResourceStore; hold: () => Gate; releaseAll: () => void } {
  let gate: { enter: () => void; wait: Promise<boolean> } | null = null;
  const opened: Array<() => void> = [];
  const wrap = (store: ResourceStore): ResourceStore => new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'applyIntent') {
        return async (...args: Parameters<ResourceStore['applyIntent']>) => {
          const g = gate;
          gate = null;
          if (g) {
            g.enter();
            if (await g.wait) throw new StoreError('KV timeout (JetStream leader election)', true);
          }
          return target.applyIntent(...args);
        };
      }
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    wrap,
    hold() {
      let enter!: () => void;
      let release!: (fail: boolean) => void;
      const entered = new Promise<void>((r) => (enter = r));
      const wait = new Promise<boolean>((r) => (release = r));
      gate = { enter, wait };
      opened.push(() => release(true));
      return { entered, release };
    },
    // A failed assertion throws (ava 6), and closing a server waits for the request it holds.
    releaseAll: () => { for (const open of opened) open(); },
  };
}

async function world(t: ExecutionContext) {
  const bus = createMemoryBus();
  const servers: Array<{ transport: Transport; store: NatsStore; commands: CommandServer }> = [];
  const held = heldStores();
  for (const name of ['a', 'b']) {
    const transport = bus.connect(name);
    const store = await openNatsStoreOn(transport);
    const requests = await openRequestLedger(transport);
    servers.push({ transport, store, commands: startCommandServer({ transport, store: held.wrap(store.resources), shardCount: SHARDS, log: silentLogger, requests }) });
  }
  const client = bus.connect('cli');
  t.teardown(async () => {
    held.releaseAll();
    for (const s of servers) {
      await s.commands.close();
      await s.store.close();
      await s.transport.close();
    }
    await client.close();
  });
  const applied = await servers[0]!.store.apply([{ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'slow-0', namespace: 'fleet' }, spec: { online: true, bmc: { address: 'redfish://192.0.2.1/redfish/v1/Systems/1', credentialsName: 'bmc' } } }], 'test');
  t.true(applied.ok);
  return { servers, client, held, key: 'fleet/slow-0', subject: `mf.cmd.${shardOf('fleet/slow-0', SHARDS)}` };
}

type Answer = { ok: true; value: HostCommandReply } | { ok: false; error: { kind: string; message: string; retryable: boolean } };
async function ask(client: Transport, subject: string, cmd: unknown): Promise<Answer> {
  const decoded = decode(subject, await client.request(subject, encode(cmd), { timeoutMs: 5_000 }), envelope);
  if (!decoded.ok) throw new Error(JSON.stringify(decoded));
  return decoded.value as Answer;
}

test('commands - a copy of a request still being recorded elsewhere is not told it was done; once the first fails retryably, a retry records it', async (t) => {
  const { servers, client, held, key, subject } = await world(t);
  const gate = held.hold();
  // The first attempt: its node is stuck on the store.
  const first = ask(client, subject, { type: 'powerOff', host: key, requestId: 'slow-1' });
  await gate.entered;
  // The client's retry (same id) meanwhile: not a success, a retryable "not known yet".
  const copy = await ask(client, subject, { type: 'powerOff', host: key, requestId: 'slow-1' });
  t.false(copy.ok, `a copy answered while the first is unrecorded: ${JSON.stringify(copy)}`);
  if (!copy.ok) {
    t.is(copy.error.kind, 'unavailable');
    t.true(copy.error.retryable);
    t.regex(copy.error.message, /slow-1.*still being (taken|recorded)/);
  }
  gate.release(true);
  const settled = await first;
  t.false(settled.ok);
  // The retry after that is taken and recorded.
  const retry = await ask(client, subject, { type: 'powerOff', host: key, requestId: 'slow-1' });
  t.true(retry.ok && retry.value.applied, JSON.stringify(retry));
  t.is((await servers[1]!.store.get(key))?.spec.online, false, 'the power-off is recorded');
});

test('commands - a copy that arrives once the first is recorded is a repeat, as before', async (t) => {
  const { client, key, subject } = await world(t);
  const first = await ask(client, subject, { type: 'powerOff', host: key, requestId: 'done-1' });
  t.true(first.ok && first.value.applied);
  const copy = await ask(client, subject, { type: 'powerOff', host: key, requestId: 'done-1' });
  t.true(copy.ok && !copy.value.applied, JSON.stringify(copy));
  if (copy.ok) t.regex(copy.value.message, /already taken/);
});

test('commands - sendCommand rides out a first attempt that is slow to record: one power-off, answered once it is durable', async (t) => {
  const { servers, client, held, key } = await world(t);
  const gate = held.hold();
  // The client's attempts, counted: the first times out on the held node, the next meet its pending claim.
  let attempts = 0;
  const counting = new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === 'request') return (...args: Parameters<Transport['request']>) => { attempts += 1; return target.request(...args); };
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const reply = sendCommand(counting, { type: 'powerOff', host: key, requestId: 'ride-1' }, { shardCount: SHARDS, timeoutMs: 200, deadlineMs: 20_000 });
  let settledEarly = false;
  void reply.then(() => (settledEarly = true), () => (settledEarly = true));
  await gate.entered;
  await waitFor(() => attempts >= 3 || settledEarly, 10_000, 'the client retried against the pending claim');
  t.false(settledEarly, 'no answer while nothing is recorded');
  gate.release(false);
  const r = await reply;
  t.is(r.host, key);
  t.is((await servers[1]!.store.get(key))?.spec.online, false);
});

test('request ledger - a claim its node never settled (it died while recording) is answered as taken once stale, not as pending for 15 minutes', async (t) => {
  const bus = createMemoryBus();
  const transport = bus.connect('a');
  t.teardown(() => transport.close());
  let now = 1_000_000;
  const ledger = kvRequestLedger(await transport.kv(REQUEST_BUCKET, { ttlMs: 60_000, history: 1 }), () => now);
  t.is(await ledger.claim('fleet/h-0', 'reboot', 'r-1'), null);
  t.deepEqual(await ledger.claim('fleet/h-0', 'reboot', 'r-1'), { refused: null, pending: true });
  now += PENDING_STALE_MS;
  t.deepEqual(await ledger.claim('fleet/h-0', 'reboot', 'r-1'), { refused: null });
  // Settled: a repeat at once.
  t.is(await ledger.claim('fleet/h-0', 'reboot', 'r-2'), null);
  await ledger.taken('fleet/h-0', 'reboot', 'r-2');
  t.deepEqual(await ledger.claim('fleet/h-0', 'reboot', 'r-2'), { refused: null });
});
