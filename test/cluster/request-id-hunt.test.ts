// A request id names one request. The ledger took ids per host and command only, so a second,
// different request under an id already taken (a reboot --mode hard after a soft one, a powerOff
// for the MaasMachine after one for the BareMetalHost of that name) was answered as a repeat of
// the first: "already taken ... nothing more was done", applied false, exit 0, while what was
// asked was never done. It is refused now, naming what differs, and the first request's entry stands.
import test from 'ava';
import { createMemoryBus, decode, encode, replyEnvelope, type Reply } from '../../src/bus/index.ts';
import { HostCommandReply } from '../../src/bus/messages/index.ts';
import { kvRequestLedger, REQUEST_BUCKET } from '../../src/cluster/request-ledger.ts';
import { type Transport } from '../../src/ports/index.ts';
import { commandWorld } from '../support/command-servers.ts';

const envelope = replyEnvelope(HostCommandReply);

async function ask(client: Transport, subject: string, cmd: unknown): Promise<Reply<HostCommandReply>> {
  const decoded = decode(subject, await client.request(subject, encode(cmd), { timeoutMs: 2_000 }), envelope);
  if (!decoded.ok) throw decoded.error;
  return decoded.value;
}

test('request id reuse - a different request under an id already taken is refused naming what differs, not answered as a repeat', async (t) => {
  const { client, key, subject, servers } = await commandWorld(t, 'reuse-0');
  const first = await ask(client, subject, { type: 'powerOff', host: key, requestId: 'r-1', reason: 'maintenance' });
  t.true(first.ok && first.value.applied, JSON.stringify(first));

  // The same request again (a retry, a late copy): a repeat, as ever.
  const copy = await ask(client, subject, { type: 'powerOff', host: key, requestId: 'r-1', reason: 'maintenance' });
  t.true(copy.ok && !copy.value.applied && /already taken/.test(copy.value.message), JSON.stringify(copy));

  // Another request under that id: refused, not told "already taken".
  const other = await ask(client, subject, { type: 'powerOff', host: key, kind: 'MaasMachine', requestId: 'r-1', reason: 'maintenance' });
  t.false(other.ok, JSON.stringify(other));
  if (!other.ok) {
    t.is(other.error.kind, 'invalid');
    t.false(other.error.retryable);
    t.regex(other.error.message, /r-1/);
    t.regex(other.error.message, /\bkind\b/);
    t.regex(other.error.message, /new request id/);
  }
  // The first request's entry stands: its copy is still a repeat.
  const again = await ask(client, subject, { type: 'powerOff', host: key, requestId: 'r-1', reason: 'maintenance' });
  t.true(again.ok && !again.value.applied, JSON.stringify(again));
  t.is((await servers[1]!.store.get(key))?.spec.online, false);
});

test('request id reuse - a reboot --mode hard under the id of a soft one is refused naming mode, not answered with the soft one\'s outcome', async (t) => {
  const { client, key, subject } = await commandWorld(t, 'reuse-0');
  await ask(client, subject, { type: 'reboot', host: key, requestId: 'r-2', mode: 'soft' });
  const hard = await ask(client, subject, { type: 'reboot', host: key, requestId: 'r-2', mode: 'hard' });
  t.false(hard.ok, JSON.stringify(hard));
  if (!hard.ok) {
    t.is(hard.error.kind, 'invalid');
    t.regex(hard.error.message, /\bmode\b/);
    t.notRegex(hard.error.message, /refused so before/);
  }
});

test('request ledger - a claim with another body is told so while pending and once settled; the same body is a copy', async (t) => {
  const bus = createMemoryBus();
  const transport = bus.connect('a');
  t.teardown(() => transport.close());
  const ledger = kvRequestLedger(await transport.kv(REQUEST_BUCKET, { ttlMs: 60_000, history: 1 }));
  const soft = JSON.stringify({ mode: 'soft' });
  const hard = JSON.stringify({ mode: 'hard' });
  t.is(await ledger.claim('fleet/h-0', 'reboot', 'r-1', soft), null);
  t.deepEqual(await ledger.claim('fleet/h-0', 'reboot', 'r-1', soft), { refused: null, pending: true });
  t.like(await ledger.claim('fleet/h-0', 'reboot', 'r-1', hard), { refused: null, otherRequest: ['mode'] });
  await ledger.taken('fleet/h-0', 'reboot', 'r-1', soft);
  t.deepEqual(await ledger.claim('fleet/h-0', 'reboot', 'r-1', soft), { refused: null });
  t.like(await ledger.claim('fleet/h-0', 'reboot', 'r-1', hard), { refused: null, otherRequest: ['mode'] });
  await ledger.refused('fleet/h-0', 'reboot', 'r-1', { code: 'conflict', message: 'no' }, soft);
  t.like(await ledger.claim('fleet/h-0', 'reboot', 'r-1', hard), { otherRequest: ['mode'] });
  t.like(await ledger.claim('fleet/h-0', 'reboot', 'r-1', soft), { refused: { code: 'conflict', message: 'no' } });
});
