// The nats.js KV watch can end on its own: its ordered consumer's iterator stops when the
// subscription behind it fails (here: a server that came back refusing the watch's delivery
// subject), or after repeated failures to recreate the consumer. A watch that ends must be
// restarted from the last revision it delivered, or the node's caches go stale for ever.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { NatsBucket, openNatsKv } from '../../src/bus/nats-kv.ts';
import type { KvEvent } from '../../src/ports/index.ts';
import { startNatsServer, type NatsServer } from '../support/nats-server.ts';
import { deferred, retrying, waitFor } from '../support/wait.ts';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array): string => new TextDecoder().decode(b);

const password = randomBytes(12).toString('hex');
const authConfig = (deny: string): string =>
  `authorization { users: [ { user: watcher, password: "${password}", permissions: { publish: { allow: [">"] }, subscribe: { allow: [">"], deny: [${JSON.stringify(deny)}] } } } ] }`;

let server: NatsServer;
const connections: NatsConnection[] = [];
test.before(async () => {
  server = await startNatsServer({ config: authConfig('nothing.denied.yet') });
});
test.after.always(async () => {
  for (const nc of connections) await nc.close().catch(() => {});
  await server?.dispose();
});

async function client(): Promise<NatsConnection> {
  const nc = await connect({ servers: server.url, user: 'watcher', pass: password, reconnectTimeWait: 50, maxReconnectAttempts: -1 });
  connections.push(nc);
  return nc;
}

test.serial('nats: a watch whose nats.js iterator ends is restarted from the last revision it delivered', async (t) => {
  const nc = await client();
  const writerNc = await client();
  const logs: string[] = [];
  const bucket = await openNatsKv(nc, 'mf-hosts', { log: (m: string) => logs.push(m) });
  const writer = await openNatsKv(writerNc, 'mf-hosts');
  await writer.put('host.a', bytes('a1'));
  await writer.put('host.b', bytes('b1'));

  const events: KvEvent[] = [];
  let ready = false;
  const stop = await bucket.watch({ key: 'host.>', onEvent: (e) => events.push(e), onReady: () => { ready = true; } });
  try {
    await waitFor(() => ready && events.length === 2, 10_000, 'the replay of host.a and host.b');

    // The watch's consumer and the subject it delivers to.
    const jsm = await jetstreamManager(writerNc);
    const consumers = [];
    for await (const ci of jsm.consumers.list('KV_mf-hosts')) consumers.push(ci);
    t.is(consumers.length, 1, 'one watch consumer');
    const deliver = consumers[0]!.config.deliver_subject!;
    t.truthy(deliver);

    // The server comes back refusing that subject: the client's resubscribe is refused, and
    // nats.js ends the watch's iterator (the permission error stops the push consumer).
    const violation = deferred<string>();
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'error' && /Permissions Violation/i.test(String(s.error))) violation.resolve(String(s.error));
      }
    })();
    await server.stop();
    const conf = join(server.dir, 'nats.conf');
    await writeFile(conf, (await readFile(conf, 'utf8')).replace('"nothing.denied.yet"', JSON.stringify(deliver)));
    await server.start();
    const refused = await Promise.race([violation.promise, new Promise<null>((r) => setTimeout(() => r(null), 15_000))]);
    t.truthy(refused, 'the resubscribe of the watch was refused');
    t.notRegex(String(refused), new RegExp(password), 'no secret in the error');

    // Writes after the watch's iterator ended: an update, a delete and a new key.
    // (the writer's connection may still be reconnecting, and JetStream recovering its streams).
    await retrying(() => writer.put('host.b', bytes('b2')));
    await writer.delete('host.a');
    await writer.put('host.c', bytes('c1'));

    const has = (op: string, key: string, value?: string): boolean =>
      events.some((e) => e.op === op && e.key === key && (value === undefined || (e.op === 'put' && text(e.value) === value)));
    await waitFor(() => has('put', 'host.b', 'b2') && has('delete', 'host.a') && has('put', 'host.c', 'c1'), 20_000, 'the writes made after the nats.js watch ended');

    // And a later write too.
    await writer.put('host.d', bytes('d1'));
    await waitFor(() => has('put', 'host.d', 'd1'), 10_000, 'a later write');

    const revisions = events.map((e) => e.revision);
    t.deepEqual(revisions, [...revisions].sort((x, y) => x - y), 'in revision order');
    t.is(new Set(revisions).size, revisions.length, 'no revision delivered twice');
    t.deepEqual(events.map((e) => [e.op, e.key]), [
      ['put', 'host.a'], ['put', 'host.b'], ['put', 'host.b'], ['delete', 'host.a'], ['put', 'host.c'], ['put', 'host.d'],
    ]);
    t.is(logs.length, 1, `the restart is logged once: ${JSON.stringify(logs)}`);
    t.regex(logs[0]!, /mf-hosts/);
    t.false(logs.some((m) => m.includes(password)), 'no secret in the log');
  } finally {
    stop();
  }
});

test.serial('nats: closing the connection ends a watch for good: no restart, nothing logged', async (t) => {
  const nc = await client();
  const logs: string[] = [];
  const bucket = await openNatsKv(nc, 'mf-closing', { log: (m: string) => logs.push(m), restartBackoffMs: [1] });
  await bucket.put('host.a', bytes('1'));
  const events: KvEvent[] = [];
  await bucket.watch({ onEvent: (e) => events.push(e) });
  await waitFor(() => events.length === 1, 10_000, 'the replay');
  await nc.close();
  // An ended watch is logged at once when it is restarted; give it 200 ms.
  await new Promise((r) => setTimeout(r, 200));
  t.deepEqual(logs, []);
});

test.serial('nats: a watch that ends while its connection is closed is not restarted', async (t) => {
  const ended = deferred();
  let watches = 0;
  const kv = {
    watch: async () => {
      watches++;
      return {
        stop() {},
        async *[Symbol.asyncIterator]() {
          yield { key: 'host.a', value: bytes('1'), revision: 1, delta: 0, operation: 'PUT' };
          ended.resolve();
        },
      };
    },
  } as unknown as KV;
  const logs: string[] = [];
  const bucket = new NatsBucket('mf-hosts', kv, async () => ['host.a'], { isClosed: () => true, log: (m) => logs.push(m), restartBackoffMs: [1] });
  const events: KvEvent[] = [];
  const stop = await bucket.watch({ onEvent: (e) => events.push(e) });
  try {
    await ended.promise;
    // A restart would follow within 1 ms; give it a hundred times that.
    await new Promise((r) => setTimeout(r, 100));
    t.is(watches, 1, 'not watched again');
    t.deepEqual(logs, []);
    t.is(events.length, 1);
  } finally {
    stop();
  }
});

test.serial('nats: a restarted watch skips what it delivered already, and backs off while the restart fails', async (t) => {
  let watches = 0;
  const resumes: Array<number | undefined> = [];
  const kv = {
    watch: async (opts: { resumeFromRevision?: number }) => {
      watches++;
      resumes.push(opts.resumeFromRevision);
      if (watches === 2 || watches === 3) throw new Error('no responders');
      const from = opts.resumeFromRevision ?? 1;
      const all = [
        { key: 'host.a', value: bytes('1'), revision: 1, delta: 1, operation: 'PUT' },
        { key: 'host.b', value: bytes('2'), revision: 2, delta: 0, operation: 'PUT' },
        { key: 'host.a', value: new Uint8Array(0), revision: 3, delta: 0, operation: 'DEL' },
      ];
      // The first watch ends after revision 2; the next two cannot be made; the fourth delivers 1
      // again (as a server that ignored the resume point would) and then 3.
      const entries = watches === 1 ? all.slice(0, 2) : [all[0]!, ...all.filter((e) => e.revision >= from)];
      return {
        stop() {},
        async *[Symbol.asyncIterator]() {
          yield* entries;
          if (watches > 1) await new Promise(() => {});
        },
      };
    },
  } as unknown as KV;
  const logs: string[] = [];
  const bucket = new NatsBucket('mf-hosts', kv, async () => ['host.a', 'host.b'], { log: (m) => logs.push(m), restartBackoffMs: [1, 2] });
  const events: KvEvent[] = [];
  const stop = await bucket.watch({ onEvent: (e) => events.push(e) });
  try {
    await waitFor(() => events.length === 3, 5_000, 'the delete after the restart');
    t.deepEqual(events.map((e) => [e.op, e.key, e.revision]), [['put', 'host.a', 1], ['put', 'host.b', 2], ['delete', 'host.a', 3]]);
    t.deepEqual(resumes, [undefined, 3, 3, 3]);
    t.is(logs.length, 1);
  } finally {
    stop();
  }
});
