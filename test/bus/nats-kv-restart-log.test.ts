// A node's logs are pino JSON lines. A KV watch that ends and is restarted must be reported
// through the node's logger (a structured warn line), never as plain text on stderr.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { connectNats } from '../../src/bus/nats-transport.ts';
import type { KvEvent } from '../../src/ports/index.ts';
import { recordingLogger, type LogLine } from '../support/recording-logger.ts';
import { startNatsServer } from '../support/nats-server.ts';
import { waitFor } from '../support/wait.ts';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const password = randomBytes(12).toString('hex');
const authConfig = (deny: string): string =>
  `authorization { users: [ { user: watcher, password: "${password}", permissions: { publish: { allow: [">"] }, subscribe: { allow: [">"], deny: [${JSON.stringify(deny)}] } } } ] }`;

test('nats kv - a restarted watch is logged as a structured warn through the node logger, nothing on stderr', async (t) => {
  const server = await startNatsServer({ config: authConfig('nothing.denied.yet') });
  t.teardown(() => server.dispose());
  const lines: LogLine[] = [];
  const transport = await connectNats({
    servers: server.url, name: 'watcher', auth: { user: 'watcher', pass: password }, reconnectTimeWaitMs: 50, log: recordingLogger(lines),
  });
  t.teardown(() => transport.close());
  const bucket = await transport.kv('mf-logged');
  await bucket.put('host.a', bytes('a1'));
  const events: KvEvent[] = [];
  const stop = await bucket.watch({ key: 'host.>', onEvent: (e) => events.push(e) });
  t.teardown(stop);
  await waitFor(() => events.length === 1, 10_000, 'the replay of host.a');

  const admin = await connect({ servers: server.url, user: 'watcher', pass: password });
  const jsm = await jetstreamManager(admin);
  const consumers = [];
  for await (const ci of jsm.consumers.list('KV_mf-logged')) consumers.push(ci);
  await admin.close();
  const deliver = consumers[0]?.config.deliver_subject;
  t.truthy(deliver, 'the watch consumer delivers to a subject');

  const stderr: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    stderr.push(String(chunk));
    return (write as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  t.teardown(() => {
    process.stderr.write = write;
  });

  // The server comes back refusing the watch's delivery subject: nats.js ends the watch's iterator.
  await server.stop();
  const conf = join(server.dir, 'nats.conf');
  await writeFile(conf, (await readFile(conf, 'utf8')).replace('"nothing.denied.yet"', JSON.stringify(deliver)));
  await server.start();

  const restarted = (): LogLine | undefined => lines.find((l) => l.level === 'warn' && l.obj['bucket'] === 'mf-logged');
  await waitFor(() => restarted() !== undefined, 20_000, 'the warn line of the watch restart');
  const line = restarted()!;
  t.is(line.obj['resumeFromRevision'], 2, 'resumes after the last revision delivered');
  t.is(typeof line.obj['reason'], 'string');
  t.true(String(line.obj['reason']).length > 0);
  t.regex(line.msg, /watch/);
  t.false(JSON.stringify(lines).includes(password), 'no secret in the log');
  t.deepEqual(stderr.filter((s) => /mf-logged|watch/.test(s)), [], 'nothing about the watch on stderr');
});
