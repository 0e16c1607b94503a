import type { KvBucket } from '../../src/ports/index.ts';

/** A bucket that does what `inner` does, but for the methods given (to count, hold or fail them). */
export function wrappedBucket(inner: KvBucket, override: Partial<KvBucket>): KvBucket {
  return {
    name: inner.name,
    get: (key) => inner.get(key),
    create: (key, value) => inner.create(key, value),
    update: (key, value, revision) => inner.update(key, value, revision),
    put: (key, value) => inner.put(key, value),
    delete: (key, options) => inner.delete(key, options),
    keys: (pattern) => inner.keys(pattern),
    watch: (options) => inner.watch(options),
    ...override,
  };
}
