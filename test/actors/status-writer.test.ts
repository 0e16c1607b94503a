// Status is what a new owner resumes from, so a write the store could not take for now is tried
// again until it lands; a refusal that will not change (stale fence, host gone) is not.
import test from 'ava';
import { StatusWriter } from '../../src/actors/host/status-writer.ts';
import { createManualClock } from '../../src/actors/runtime/index.ts';
import { initialStatus, type BareMetalHostStatus } from '../../src/api/index.ts';
import type { ResourceStore } from '../../src/ports/index.ts';
import { ObjectGone, silentLogger, StaleFence, StoreError } from '../../src/ports/index.ts';
import { ObjectNotFound } from '../../src/adapters/kube/object-writer.ts';
import { ResourceNotFound } from '../../src/adapters/store/kind-cache.ts';
import { recordingLogger, type LogLine } from '../support/recording-logger.ts';
import { waitFor } from '../support/wait.ts';

function storeFailing(failures: Error[]): { store: ResourceStore; written: BareMetalHostStatus[]; attempts: () => number } {
  const written: BareMetalHostStatus[] = [];
  let attempts = 0;
  const store = {
    async writeStatus(_kind: string, _key: string, status: BareMetalHostStatus) {
      attempts += 1;
      const failure = failures.shift();
      if (failure) throw failure;
      written.push(status);
    },
  } as unknown as ResourceStore;
  return { store, written, attempts: () => attempts };
}

const status = (state: BareMetalHostStatus['provisioning']['state']): BareMetalHostStatus => {
  const s = initialStatus();
  return { ...s, provisioning: { ...s.provisioning, state } };
};

test('status writer - a retryable failure is retried with backoff until the write lands, newest status first', async (t) => {
  const clock = createManualClock();
  const unavailable = (): StoreError => new StoreError('the NATS store is unavailable (timeout); try again', true);
  const { store, written, attempts } = storeFailing([unavailable(), unavailable()]);
  const writer = new StatusWriter('fleet/h', store, silentLogger, clock);
  writer.write(status('provisioning'));
  await waitFor(() => attempts() === 1);
  t.false(writer.idle);
  writer.write(status('provisioned')); // arrives while the first write waits to be retried
  clock.advance(200);
  await waitFor(() => attempts() === 2);
  clock.advance(399);
  await Promise.resolve();
  t.is(attempts(), 2, 'the second retry waits twice as long');
  clock.advance(1);
  await writer.whenIdle();
  t.deepEqual(written.map((s) => s.provisioning.state), ['provisioned']);
});

test('status writer - a stale fence or a non-retryable error is not retried', async (t) => {
  const clock = createManualClock();
  const fence = { shard: 1, epoch: 3, holder: 'a' };
  const { store, written, attempts } = storeFailing([new StaleFence('fleet/h', fence, 7), new StoreError('BareMetalHost fleet/h not found', false)]);
  const writer = new StatusWriter('fleet/h', store, silentLogger, clock, fence);
  writer.write(status('provisioning'));
  await writer.whenIdle();
  writer.write(status('provisioned'));
  await writer.whenIdle();
  clock.advance(60_000);
  t.is(attempts(), 2);
  t.deepEqual(written, []);
});

test('status writer - close stops retrying: the host stopped and a new owner writes now', async (t) => {
  const clock = createManualClock();
  const { store, attempts } = storeFailing([new Error('timeout')]);
  const writer = new StatusWriter('fleet/h', store, silentLogger, clock);
  writer.write(status('provisioning'));
  await waitFor(() => attempts() === 1);
  writer.close();
  await writer.whenIdle();
  clock.advance(60_000);
  t.is(attempts(), 1);
});

test('status writer - an object deleted under its write is no failure: not retried, and no warning', async (t) => {
  const clock = createManualClock();
  const lines: LogLine[] = [];
  const { store, written, attempts } = storeFailing([new ResourceNotFound('BareMetalHost', 'fleet/h'), new StoreError('the NATS store refused the write', false)]);
  const writer = new StatusWriter('fleet/h', store, recordingLogger(lines), clock);
  writer.write(status('deprovisioning'));
  await writer.whenIdle();
  clock.advance(60_000);
  t.is(attempts(), 1);
  t.deepEqual(written, []);
  t.deepEqual(lines.filter((l) => l.level === 'warn'), []);
  t.true(lines.some((l) => l.level === 'debug' && l.msg === 'status not written: the object is gone'));
  // Any other refusal that will not change still warns.
  writer.write(status('provisioned'));
  await writer.whenIdle();
  t.deepEqual(lines.filter((l) => l.level === 'warn').map((l) => l.msg), ['status write failed']);
});

test('status writer - the Kubernetes store\'s not-found is the same gone object as the NATS store\'s', (t) => {
  t.true(new ObjectNotFound('BareMetalHost', 'fleet/h', 'writing the status of BareMetalHost fleet/h') instanceof ObjectGone);
  t.true(new ResourceNotFound('BareMetalHost', 'fleet/h') instanceof ObjectGone);
});
