import { systemClock } from '../../src/actors/runtime/index.ts';
import { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import { acquireLease } from '../../src/cluster/index.ts';
import type { Lease } from '../../src/cluster/index.ts';
import { KvUnavailable } from '../../src/ports/index.ts';

// A shard lease whose renewals never get through (the starved node's NATS answers late and the key
// expires), and the starvation itself: a busy loop in which no timer and no I/O callback runs.
// test/cluster/lease-call-leaving.test.ts set the pattern; the client tests share it.

export async function starvedLease(ttlMs = 300): Promise<{ lease: Lease; lost: string[] }> {
  const bucket = new MemoryKvStore(systemClock).bucket('leases', { ttlMs });
  bucket.update = () => Promise.reject(new KvUnavailable('leases', 'test: the renewal came too late'));
  const lost: string[] = [];
  const lease = await acquireLease({ bucket, key: 'shard.3', holder: 'a', ttlMs, clock: systemClock, onLost: (why) => lost.push(why) });
  if (lease === null) throw new Error('starvedLease: the lease was not acquired');
  return { lease, lost };
}

/** Busy-waits (the event loop starved) until the lease's local deadline has passed by `byMs`. */
export function starvePast(lease: Lease, byMs = 20): void {
  while (performance.now() <= lease.deadline + byMs) { /* starved: nothing else runs */ }
}

export async function until(what: string, cond: () => boolean, limitMs = 10_000): Promise<void> {
  const from = performance.now();
  while (!cond()) {
    if (performance.now() - from > limitMs) throw new Error(`not within ${limitMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
