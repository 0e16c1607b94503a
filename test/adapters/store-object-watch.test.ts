// The KV object records deliver changes as the other stores do (store/events.ts ResourceEvents):
// in order, filtered by each watcher's kinds and keys, a throwing watcher logged and the others
// still told.
import test from 'ava';
import { OBJECT_LAYOUTS } from '../../src/adapters/store/kv-layouts.ts';
import { besideObjects } from '../support/object-buckets.ts';
import { openKvStore } from '../../src/adapters/store/kv-store.ts';
import { OBJECTS_BUCKET } from '../../src/machines/buckets.ts';
import { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import { StoreError, type Logger } from '../../src/ports/index.ts';
import { waitUntil } from '../support/wait.ts';

const machine = (name: string) => ({ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine', metadata: { name, namespace: 'default' }, spec: { minCPU: 1, minMemory: 1024, image: 'ubuntu' } });

function warnings(messages: string[]): Logger {
  const logger: Logger = { debug: () => undefined, info: () => undefined, warn: (_fields: object, msg?: string) => void messages.push(msg ?? ''), error: () => undefined, child: () => logger };
  return logger;
}

test('store object watch - each watcher is told its kinds and keys in order; one that throws is logged and the others are still told', async (t) => {
  const warned: string[] = [];
  const store = await openKvStore({ layouts: OBJECT_LAYOUTS, bucket: besideObjects(new MemoryKvStore().bucket(OBJECTS_BUCKET)), log: warnings(warned) });
  t.teardown(() => store.close());
  const mine: string[] = [];
  const all: string[] = [];
  store.watch(() => {
    throw new Error('a watcher fails');
  });
  store.watch((event) => mine.push(`${event.type} ${event.key}`), { kinds: ['MaasMachine'], keys: (key) => key === 'default/m-0' });
  store.watch((event) => all.push(`${event.kind} ${event.key}`), { kinds: ['MaasMachine'] });
  t.true((await store.apply([machine('m-0'), machine('m-1')])).ok);
  await store.writeStatus('MaasMachine', 'default/m-0', { ready: true });
  t.is(await store.requestDelete('MaasMachine', 'default/m-0'), 'deleted');
  await waitUntil(() => mine.length === 3, 2_000, 'the watcher of m-0 is told its three changes');
  t.deepEqual(mine, ['upsert default/m-0', 'upsert default/m-0', 'deleted default/m-0']);
  t.deepEqual(all, ['MaasMachine default/m-0', 'MaasMachine default/m-1', 'MaasMachine default/m-0', 'MaasMachine default/m-0']);
  t.true(warned.some((m) => /watch listener threw/.test(m)));
});

test('store object watch - a bucket that never finishes replaying fails the open within its timeout, naming the bucket, instead of hanging, and stops the watch it started', async (t) => {
  const bucket = new MemoryKvStore().bucket(OBJECTS_BUCKET);
  let stopped = 0;
  // A KV that takes the watch but never says it has replayed (JetStream gone quiet).
  const silent = Object.assign(Object.create(bucket) as typeof bucket, {
    watch: async () => () => void (stopped += 1),
  });
  const error = await t.throwsAsync(openKvStore({ layouts: OBJECT_LAYOUTS, bucket: besideObjects(silent), readyTimeoutMs: 50 }), { instanceOf: StoreError });
  t.regex(error!.message, new RegExp(`did not finish reading buckets ${OBJECTS_BUCKET} within 50 ms`));
  t.true(error!.retryable);
  t.is(stopped, 1);
});
