// A node replies to a command only once its audit record is written. When the audit stream is slow
// (its publish acknowledged late) but the store is not, the reply to the first attempt can come
// after the client's attempt timeout (2 s): the client sends the command again, and the retry is
// answered "already taken" (applied: false), so the user is never told it was applied. Here the
// audit's publishes are held (on a real nats-server, with the real store and client) until either
// the first attempt's reply reaches the client or a second attempt reaches the audit.
import test from 'ava';
import { connectNats, subjects } from '../../src/bus/index.ts';
import { sendCommand } from '../../src/cluster/command-client.ts';
import { startCommandServer } from '../../src/cluster/command-server.ts';
import { silentLogger, type Transport } from '../../src/ports/index.ts';
import { openAuditLog, readAudit } from '../../src/security/index.ts';
import { natsServerInstalled, startNatsServer } from '../support/nats-server.ts';
import { bmh, secret } from '../support/node.ts';
import { openLocalStoreWithMaas } from '../support/maas-node.ts';
import { waitUntil } from '../support/wait.ts';

if (!natsServerInstalled()) test('audit slow reply - nats-server is installed', (t) => t.fail('nats-server is missing: these tests need a real server'));

test('audit slow reply - a slow audit write does not push the reply past the client\'s attempt timeout: the user is told the command was applied', async (t) => {
  const nats = await startNatsServer();
  t.teardown(() => nats.dispose());
  const node = await connectNats({ servers: nats.url, name: 'node-a' });
  t.teardown(() => node.close());
  const hosts = await openLocalStoreWithMaas(node);
  t.teardown(() => hosts.resources.close());
  t.true((await hosts.applyObjects([secret('bmc', 'lab'), bmh('slow', { namespace: 'lab' })])).ok);

  // The audit's publishes wait here until let go: a slow audit stream, the store unaffected.
  let asked = 0;
  let open = false;
  const waiting: Array<() => void> = [];
  const letGo = (): void => {
    open = true;
    for (const go of waiting.splice(0)) go();
  };
  const slowAudit = new Proxy(node, {
    get(target, property) {
      if (property === 'request') {
        return async (subject: string, data: Uint8Array, options: { timeoutMs: number }): Promise<Uint8Array> => {
          if (subject.startsWith('mf.audit.') || subject.startsWith('mf.refusals.')) {
            asked += 1;
            if (!open) await new Promise<void>((resolve) => waiting.push(resolve));
          }
          return target.request(subject, data, options);
        };
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as Transport;
  t.teardown(letGo);
  const audit = await openAuditLog(slowAudit, subjects(), silentLogger);
  const server = startCommandServer({ transport: node, store: hosts.resources, shardCount: 8, log: silentLogger, audit, node: 'node-a' });
  t.teardown(() => server.close());
  const client = await connectNats({ servers: nats.url, name: 'cli' });
  t.teardown(() => client.close());

  let replied = false;
  const sent = sendCommand(client, { type: 'powerOff', host: 'lab/slow', requestId: 'slow-1' }, { shardCount: 8 }).finally(() => (replied = true));
  await waitUntil(() => replied || asked >= 2, 20_000, 'the reply, or a second attempt');
  const retried = asked >= 2;
  // A stopping node's flush waits for the record still being written.
  let flushed = false;
  const flushing = audit.flush().then(() => (flushed = true));
  t.true(await node.answers(5_000));
  t.false(flushed, 'flush waits for the write still going');
  letGo();
  const reply = await sent;
  t.like(reply, { host: 'lab/slow', command: 'powerOff', applied: true }, reply.message);
  t.false(retried, 'the client timed out and sent the command again');
  await flushing;
  // The record is written all the same, once the stream takes it.
  t.true((await readAudit(client, subjects(), { host: 'lab/slow' })).some((x) => x.requestId === 'slow-1' && x.outcome === 'applied'));
});
