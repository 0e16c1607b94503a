// A subject with whitespace, an empty token, or (to publish) a wildcard is the caller's mistake:
// a non-retryable invalidMessage naming it, as the memory transport says, never a retryable
// "unavailable" that sends a retry loop round for ever, and never a wildcard publish routed on.
import test from 'ava';
import { connectNats } from '../../src/bus/nats-transport.ts';
import { BusError } from '../../src/ports/index.ts';
import { createMemoryTransport } from '../../src/bus/memory-transport.ts';
import { startNatsServer } from '../support/nats-server.ts';

const PUBLISH_REFUSED = ['mf.a b', 'mf..x', 'mf.x.', '.mf', 'mf.*', 'mf.>', 'mf.x\ty', ''];
const SUBSCRIBE_REFUSED = ['mf.a b', 'mf..x', 'mf.x.', 'mf.>.x', ''];

test('nats transport - an invalid subject is a non-retryable invalidMessage naming it, as on the memory transport', async (t) => {
  const server = await startNatsServer();
  t.teardown(() => server.dispose());
  const nats = await connectNats({ servers: server.url, name: 'subjects' });
  t.teardown(() => nats.close());
  const memory = createMemoryTransport();
  const data = new Uint8Array([1]);
  for (const subject of PUBLISH_REFUSED) {
    for (const [name, bus] of [['nats', nats], ['memory', memory]] as const) {
      const error = t.throws(() => bus.publish(subject, data), { instanceOf: BusError }, `${name} publish ${JSON.stringify(subject)}`);
      t.is(error?.kind, 'invalidMessage', `${name} publish ${JSON.stringify(subject)}`);
      t.false(error?.retryable);
    }
    const error = await t.throwsAsync(nats.request(subject, data, { timeoutMs: 500 }), { instanceOf: BusError }, `request ${JSON.stringify(subject)}`);
    t.is(error?.kind, 'invalidMessage', `request ${JSON.stringify(subject)}`);
  }
  for (const subject of SUBSCRIBE_REFUSED) {
    const error = t.throws(() => nats.subscribe(subject, () => undefined), { instanceOf: BusError }, `subscribe ${JSON.stringify(subject)}`);
    t.is(error?.kind, 'invalidMessage', `subscribe ${JSON.stringify(subject)}`);
    t.false(error?.retryable);
  }
  // Wildcards are for subscribing: still taken there.
  nats.subscribe('mf.*.x', () => undefined).unsubscribe();
  nats.subscribe('mf.>', () => undefined).unsubscribe();
});
