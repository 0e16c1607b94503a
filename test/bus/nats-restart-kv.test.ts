// After the server restarts (same port, same store), a node's connection comes back by itself:
// its KV reads, writes and watches carry on without the node doing anything.
import test from 'ava';
import { connectNats } from '../../src/bus/nats-transport.ts';
import type { KvEvent } from '../../src/ports/index.ts';
import { recordingLogger, type LogLine } from '../support/recording-logger.ts';
import { startNatsServer } from '../support/nats-server.ts';
import { retrying, waitFor } from '../support/wait.ts';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array): string => new TextDecoder().decode(b);

test('nats kv - after a server restart a watch hears new writes, and reads and writes work again', async (t) => {
  const server = await startNatsServer();
  t.teardown(() => server.dispose());
  const lines: LogLine[] = [];
  const opts = { servers: server.url, reconnectTimeWaitMs: 50, log: recordingLogger(lines) };
  const [watcher, writer] = [await connectNats({ ...opts, name: 'watcher' }), await connectNats({ ...opts, name: 'writer' })];
  t.teardown(() => Promise.all([watcher.close(), writer.close()]).then(() => undefined));
  const watched = await watcher.kv('mf-restart');
  const written = await writer.kv('mf-restart');
  await written.put('host.a', bytes('a1'));
  const events: KvEvent[] = [];
  const stop = await watched.watch({ key: 'host.>', onEvent: (e) => events.push(e) });
  t.teardown(stop);
  await waitFor(() => events.length === 1, 10_000, 'the replay');

  await server.restart();
  await retrying(() => written.put('host.b', bytes('b1')));
  await waitFor(() => events.some((e) => e.key === 'host.b'), 20_000, 'the write after the restart');
  await written.put('host.a', bytes('a2'));
  await waitFor(() => events.some((e) => e.op === 'put' && e.key === 'host.a' && text(e.value) === 'a2'), 10_000, 'a later write');
  const got = await watched.get('host.b');
  t.is(got && text(got.value), 'b1');
  const revisions = events.map((e) => e.revision);
  t.is(new Set(revisions).size, revisions.length, 'nothing delivered twice');
});
