import { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import { OBJECT_STATUS_BUCKET, OBJECTS_BUCKET } from '../../src/machines/buckets.ts';
import type { KvBucket } from '../../src/ports/index.ts';

// The object kinds' records over a test's own mf-objects bucket (one whose values it corrupts,
// or whose watch it silences), with the status bucket beside it: one per objects bucket, so a
// store reopened on the same bucket finds the statuses it wrote.
const statuses = new WeakMap<KvBucket, KvBucket>();

export function besideObjects(objects: KvBucket): (name: string) => Promise<KvBucket> {
  return async (name) => {
    if (name === OBJECTS_BUCKET) return objects;
    if (name !== OBJECT_STATUS_BUCKET) throw new Error(`no test bucket ${name}`);
    let status = statuses.get(objects);
    if (!status) statuses.set(objects, (status = new MemoryKvStore().bucket(name)));
    return status;
  };
}
