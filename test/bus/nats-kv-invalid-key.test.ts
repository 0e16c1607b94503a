// A key NATS KV cannot hold (a space, a wildcard, an empty token) is the caller's mistake: an
// error naming the key and the bucket that says not to retry, never a retryable "unavailable"
// that a store's retry loop would go round for ever.
import test from 'ava';
import { connectNats } from '../../src/bus/nats-transport.ts';
import { KvUnavailable } from '../../src/ports/index.ts';
import { startNatsServer } from '../support/nats-server.ts';

const BAD_KEYS = ['host a', 'host.*', 'host.>', 'host..a', '.host', 'host.', 'h\tx'];

test('nats kv - a key with a space, wildcard or empty token is refused as not retryable, naming it', async (t) => {
  const server = await startNatsServer();
  t.teardown(() => server.dispose());
  const transport = await connectNats({ servers: server.url, name: 'keys' });
  t.teardown(() => transport.close());
  const bucket = await transport.kv('mf-keys');
  const value = new Uint8Array([1]);
  for (const key of BAD_KEYS) {
    const ops: Array<[string, () => Promise<unknown>]> = [
      ['get', () => bucket.get(key)], ['put', () => bucket.put(key, value)], ['create', () => bucket.create(key, value)],
      ['update', () => bucket.update(key, value, 1)], ['delete', () => bucket.delete(key)],
    ];
    for (const [op, run] of ops) {
      const error = await t.throwsAsync(run(), { instanceOf: KvUnavailable }, `${op} ${JSON.stringify(key)}`);
      t.false(error?.retryable, `${op} ${JSON.stringify(key)} is not retryable`);
      t.true(error?.message.includes(JSON.stringify(key)), `names the key: ${error?.message}`);
      t.true(error?.message.includes('mf-keys'));
    }
  }
  // Keys as the stores write them still work.
  await bucket.put('metal3/host-1.rack_2=x', value);
  t.truthy(await bucket.get('metal3/host-1.rack_2=x'));
});
