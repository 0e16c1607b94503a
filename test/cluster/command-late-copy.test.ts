// A command's late copy is not done again. The client retries an attempt that timed out (any node
// answers any shard), but the timed-out attempt may still be delivered: a node that was paused
// (GC, SIGSTOP, a slow disk) answers it once it runs again. Found on three `metalfleet node`
// processes: with two of them stopped (SIGSTOP) for a few seconds, one `metalfleet host reboot`
// was recorded three times and the host rebooted twice, since the copies came after the first
// reboot had removed its annotation. Every attempt of one call now carries one request id, and
// the nodes take each id once, cluster-wide.
import test from 'ava';
import { shardOf } from '../../src/api/index.ts';
import { decode, encode, ok, replyEnvelope } from '../../src/bus/index.ts';
import { HostCommand, HostCommandReply } from '../../src/bus/messages/index.ts';
import { sendCommand } from '../../src/cluster/command-client.ts';
import { BusError, type Transport } from '../../src/ports/index.ts';
import { bmh, secret, startTestNode } from '../support/node.ts';
import { waitFor } from '../support/wait.ts';
import { commandWorld } from '../support/command-servers.ts';

const SHARDS = 16;
const envelope = replyEnvelope(HostCommandReply);

async function ask(client: Transport, subject: string, cmd: unknown): Promise<HostCommandReply> {
  const decoded = decode(subject, await client.request(subject, encode(cmd), { timeoutMs: 2_000 }), envelope);
  if (!decoded.ok || !decoded.value.ok) throw new Error(`no reply value: ${JSON.stringify(decoded)}`);
  return decoded.value.value;
}

test('commands - a late copy of a command already taken (same request id) is a repeat: it does not undo a newer command', async (t) => {
  const { client, key, subject, servers } = await commandWorld(t, 'late-0');

  t.true((await ask(client, subject, { type: 'powerOff', host: key, requestId: 'r-1' })).applied);
  t.true((await ask(client, subject, { type: 'powerOn', host: key, requestId: 'r-2' })).applied, 'a newer command');
  // The first command's copy, held by a paused node, arrives now.
  const copy = await ask(client, subject, { type: 'powerOff', host: key, requestId: 'r-1' });
  t.false(copy.applied, copy.message);
  t.regex(copy.message, /already taken/);
  t.is((await servers[1]!.store.get(key))?.spec.online, true, 'the newer power-on stands');
  // A new request is taken as ever.
  t.true((await ask(client, subject, { type: 'powerOff', host: key, requestId: 'r-3' })).applied);
});

test('commands - every attempt of one sendCommand carries one request id, made when the caller gave none', async (t) => {
  const seen: Array<string | undefined> = [];
  let attempts = 0;
  const transport = {
    name: 'fake',
    maxPayload: 1 << 20,
    async request(subject: string, data: Uint8Array): Promise<Uint8Array> {
      const decoded = decode(subject, data, HostCommand);
      seen.push(decoded.ok ? decoded.value.requestId : 'undecodable');
      attempts += 1;
      // The first attempt times out at the client (a paused node holds it).
      if (attempts === 1) throw new BusError('timeout', subject, 'no reply within 100 ms');
      return encode(ok({ host: 'fleet/h-1', command: 'reboot', applied: true, state: 'provisioned', message: 'will reboot' }));
    },
  } as unknown as Transport;
  const reply = await sendCommand(transport, { type: 'reboot', host: 'fleet/h-1' }, { shardCount: SHARDS, timeoutMs: 100, deadlineMs: 5_000 });
  t.true(reply.applied);
  t.is(seen.length, 2);
  t.truthy(seen[0]);
  t.is(seen[1], seen[0], 'the retry is the same request');
  // One the caller gave is kept.
  seen.length = 0;
  attempts = 0;
  await sendCommand(transport, { type: 'reboot', host: 'fleet/h-1', requestId: 'mine-1' }, { shardCount: SHARDS, timeoutMs: 100, deadlineMs: 5_000 });
  t.deepEqual(seen, ['mine-1', 'mine-1']);
});

test('commands - a node takes each request id once and answers a refused request\'s copy with the same refusal (the ledger is wired into the node)', async (t) => {
  const { node, store, substrate } = await startTestNode();
  t.teardown(() => node.stop());
  t.true((await store.applyObjects([secret(), bmh('wired-1')])).ok);
  await waitFor(() => node.stats.count('provisioned') === 1, 10_000, 'provisioned');
  const subject = `mf.cmd.${shardOf('lab/wired-1', 16)}`;
  t.true((await ask(substrate.transport, subject, { type: 'powerOff', host: 'lab/wired-1', requestId: 'w-1' })).applied);
  t.true((await ask(substrate.transport, subject, { type: 'powerOn', host: 'lab/wired-1', requestId: 'w-2' })).applied);
  t.false((await ask(substrate.transport, subject, { type: 'powerOff', host: 'lab/wired-1', requestId: 'w-1' })).applied);
  t.is((await store.get('lab/wired-1'))?.spec.online, true);

  // A refused request stays refused: its copy, arriving once the host could take it, is not done.
  t.true((await ask(substrate.transport, subject, { type: 'powerOff', host: 'lab/wired-1', requestId: 'w-3' })).applied);
  const refuse = async (): Promise<{ kind: string; message: string }> => {
    const raw = await substrate.transport.request(subject, encode({ type: 'reboot', host: 'lab/wired-1', requestId: 'w-4' }), { timeoutMs: 2_000 });
    const decoded = decode(subject, raw, envelope);
    if (!decoded.ok || decoded.value.ok) throw new Error(`expected a refusal: ${JSON.stringify(decoded)}`);
    return decoded.value.error;
  };
  t.is((await refuse()).kind, 'conflict', 'a reboot of a host meant to be off');
  t.true((await ask(substrate.transport, subject, { type: 'powerOn', host: 'lab/wired-1', requestId: 'w-5' })).applied);
  const again = await refuse();
  t.is(again.kind, 'conflict');
  t.regex(again.message, /refused so before/);
  t.is((await store.get('lab/wired-1'))?.metadata.annotations?.['reboot.metal3.io'], undefined, 'no reboot recorded');
});
