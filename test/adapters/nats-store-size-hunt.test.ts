// A status over the bucket's own max value size (a bucket made with max_value_size, by an
// operator or an older node): the server refuses it every time, so the store must say so once,
// naming the object, and not as "unavailable; try again" for ever. Nothing else is lost.
import test from 'ava';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { BareMetalHost } from '../../src/api/index.ts';
import { NATS_HOSTS_BUCKET, NATS_STATUS_BUCKET, openNatsStore } from '../../src/adapters/store/nats-store.ts';
import { PermanentWriteError } from '../../src/adapters/store/write-limits.ts';
import { openNatsKv } from '../../src/bus/nats-kv.ts';
import { StoreError } from '../../src/ports/index.ts';
import { startNatsServer } from '../support/nats-server.ts';
import { hostManifest } from '../support/host-manifest.ts';

const MAX_VALUE = 4_096;

function status(errorMessage: string): NonNullable<BareMetalHost['status']> {
  return { operationalStatus: 'OK', errorMessage, errorCount: 0, poweredOn: false, provisioningFailCount: 0, provisioning: { state: 'available', ID: 'node-1' } };
}

test('a status over the bucket\'s max value size is a permanent error naming the host; the stored host is untouched', async (t) => {
  const server = await startNatsServer();
  t.teardown(() => server.dispose());
  const nc = await connect({ servers: server.url });
  t.teardown(() => nc.close());
  await new Kvm(jetstream(nc)).create(NATS_STATUS_BUCKET, { history: 1, maxValueSize: MAX_VALUE });
  const store = await openNatsStore({ specs: await openNatsKv(nc, NATS_HOSTS_BUCKET), status: await openNatsKv(nc, NATS_STATUS_BUCKET) });
  t.teardown(() => store.close());

  const applied = await store.apply([hostManifest('big-1')]);
  t.true(applied.ok);
  await store.writeStatus('metal3/big-1', status('small'));

  const err = await t.throwsAsync(store.writeStatus('metal3/big-1', status('x'.repeat(3 * MAX_VALUE))), { instanceOf: StoreError });
  t.true(err instanceof PermanentWriteError, `${err?.name}: ${err?.message}`);
  t.false((err as StoreError).retryable, err?.message);
  t.regex(err!.message, /metal3\/big-1/);
  t.notRegex(err!.message, /try again/);

  // The host and its last good status are still there, in the cache and in the buckets.
  t.is((await store.get('metal3/big-1'))?.status?.errorMessage, 'small');
  t.is((await store.getFresh('metal3/big-1'))?.status?.errorMessage, 'small');
  // And a status that fits is still written.
  await store.writeStatus('metal3/big-1', status('fits'));
  t.is((await store.getFresh('metal3/big-1'))?.status?.errorMessage, 'fits');
});
