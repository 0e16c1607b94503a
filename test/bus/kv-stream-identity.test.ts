// The tracker that tells a KV bucket's stream made anew (a single server restarted without its
// store), or emptied (the one server keeping a bucket at one replica on a cluster lost its store),
// from the one a connection watched: no I/O, the server's answers and the timers stand-ins.
import test from 'ava';
import { KvStreamIdentity } from '../../src/bus/kv-stream-identity.ts';
import type { StreamState } from '../../src/bus/kv-stream-identity.ts';

// A creation time alone: a stream whose last sequence is past anything read.
type Answer = string | StreamState | null | Error;

function tracker(answers: Record<string, Answer[]>) {
  const told: string[] = [];
  const timers: Array<() => void> = [];
  const asked: string[] = [];
  const identity = new KvStreamIdentity({
    ask: async (bucket) => {
      asked.push(bucket);
      const next = answers[bucket]?.shift();
      if (next instanceof Error) throw next;
      if (next === undefined) throw new Error(`no answer left for ${bucket}`);
      return typeof next === 'string' ? { created: next, lastSeq: 1_000_000 } : next;
    },
    onReplaced: (reason) => told.push(reason),
    setTimeout: (fn) => timers.push(fn),
    clearTimeout: () => undefined,
  });
  return { identity, told, timers, asked };
}

test('a bucket opened again on the same stream is no change; on a new one it is, told once, naming the bucket and both times', (t) => {
  const { identity, told } = tracker({});
  identity.opened('mf-hosts', '2026-12-07T10:00:00.1Z');
  identity.opened('mf-status', '2026-12-07T10:00:00.2Z');
  identity.opened('mf-hosts', '2026-12-07T10:00:00.1Z');
  t.is(identity.reason(), null);
  identity.opened('mf-status', '2026-12-07T11:00:00Z');
  identity.opened('mf-hosts', '2026-12-07T11:00:01Z');
  t.is(told.length, 1, 'told once, not per bucket');
  t.regex(identity.reason() ?? '', /^the stream of KV bucket mf-status was created again at 2026-12-07T11:00:00Z \(this node watched the one created at 2026-12-07T10:00:00.2Z\)/);
  t.regex(identity.reason() ?? '', /restart the node/);
});

test('after a reconnect: streams that are the same leave it well; a bucket made anew is found', async (t) => {
  const { identity, told } = tracker({ 'mf-hosts': ['A', 'A'], 'mf-status': ['B', 'B2'] });
  identity.opened('mf-hosts', 'A');
  identity.opened('mf-status', 'B');
  await identity.reconnected();
  t.is(identity.reason(), null, 'a restart that kept the store');
  await identity.reconnected();
  t.regex(identity.reason() ?? '', /KV bucket mf-status was created again at B2/);
  t.is(told.length, 1);
});

test('a stream not there yet, or a server that cannot answer, is asked again until it is there', async (t) => {
  const { identity, timers, asked } = tracker({ 'mf-hosts': [null, new Error('jetstream is not enabled'), 'C'] });
  identity.opened('mf-hosts', 'A');
  await identity.reconnected();
  t.is(identity.reason(), null, 'absent is not yet made anew');
  t.is(timers.length, 1, 'asked again later');
  timers.shift()!();
  await new Promise<void>((resolve) => setImmediate(resolve));
  t.is(identity.reason(), null, 'an error is no answer');
  t.is(timers.length, 1, 'asked again after the error too');
  timers.shift()!();
  await new Promise<void>((resolve) => setImmediate(resolve));
  t.regex(identity.reason() ?? '', /mf-hosts was created again at C/);
  t.deepEqual(asked, ['mf-hosts', 'mf-hosts', 'mf-hosts']);
  t.is(timers.length, 0, 'nothing more to ask once found');
});

test('stopped: no more asking', async (t) => {
  const { identity, timers } = tracker({ 'mf-hosts': [null] });
  identity.opened('mf-hosts', 'A');
  identity.stop();
  await identity.reconnected();
  t.is(timers.length, 0);
  t.is(identity.reason(), null);
});

test('a stream with the same creation time but fewer messages than were read is found: its one server lost its store', async (t) => {
  const { identity, told } = tracker({ 'mf-leases': [{ created: 'A', lastSeq: 40 }, { created: 'A', lastSeq: 0 }] });
  identity.opened('mf-leases', 'A');
  identity.seen('mf-leases', 12);
  identity.seen('mf-leases', 40);
  identity.seen('mf-leases', 7);
  await identity.check();
  t.is(identity.reason(), null, 'the stream holds everything read so far');
  await identity.check();
  t.regex(identity.reason() ?? '', /^the stream of KV bucket mf-leases holds messages up to sequence 0 only, where this node already read revision 40: its NATS server lost its store/);
  t.is(told.length, 1);
});

test('checked on a period once asked to: each check after the one before, none after a find or a stop', async (t) => {
  const { identity, timers, asked } = tracker({ 'mf-hosts': ['A', 'A', { created: 'A', lastSeq: 1 }] });
  identity.opened('mf-hosts', 'A');
  identity.seen('mf-hosts', 5);
  identity.checkEvery(30_000);
  identity.checkEvery(30_000);
  t.is(timers.length, 1, 'one period, however often asked');
  for (let i = 0; i < 2; i++) {
    timers.shift()!();
    await new Promise<void>((resolve) => setImmediate(resolve));
    t.is(identity.reason(), null);
    t.is(timers.length, 1, 'the next check is set once this one is done');
  }
  timers.shift()!();
  await new Promise<void>((resolve) => setImmediate(resolve));
  t.regex(identity.reason() ?? '', /holds messages up to sequence 1 only, where this node already read revision 5/);
  t.is(timers.length, 0, 'nothing more once found');
  t.deepEqual(asked, ['mf-hosts', 'mf-hosts', 'mf-hosts']);

  const stopped = tracker({});
  stopped.identity.opened('mf-hosts', 'A');
  stopped.identity.checkEvery(30_000);
  stopped.identity.stop();
  t.is(stopped.timers.length, 1);
  stopped.timers.shift()!();
  t.deepEqual(stopped.asked, [], 'a stopped tracker asks nothing');
});
