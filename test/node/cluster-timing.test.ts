// The lease TTL a node runs follows its buckets' replicas (issue 30): on R3 a NATS leader election
// stopped writes for up to 8 s (docs/scale.md), longer than the 5 s that one server allows.
import test from 'ava';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import type { ClusterTiming, NodeConfig } from '../../src/node/config.ts';
import { clusterTiming, leaseTtlWarning, REPLICATED_LEASE_TTL_MS } from '../../src/node/config.ts';
import { tolerableOutageMs } from '../../src/cluster/lease.ts';

const config = (cluster?: Partial<ClusterTiming>): NodeConfig => ({
  name: 'a',
  shardCount: 256,
  machine: DEFAULT_MACHINE_CONFIG,
  capacity: { limits: {}, defaultLimit: 20, ttlMs: 30_000 },
  supervision: { maxRestarts: 5, windowMs: 60_000, backoff: { initialMs: 100, maxMs: 30_000 } },
  askTimeoutMs: 5_000,
  ...(cluster ? { cluster } : {}),
});

test('cluster timing - replicated buckets default the lease TTL to 15 s, one server keeps 5 s', (t) => {
  t.is(REPLICATED_LEASE_TTL_MS, 15_000);
  t.is(clusterTiming(config({ replicas: 3 })).leaseTtlMs, 15_000);
  t.is(clusterTiming(config({ replicas: 1 })).leaseTtlMs, 5_000);
  t.is(clusterTiming(config()).leaseTtlMs, 5_000);
  // The private bus (embedded, Kubernetes without NATS) keeps its own long lease.
  t.is(clusterTiming(config({ replicas: 3 }), false).leaseTtlMs, 60_000);
});

test('cluster timing - a lease TTL given explicitly is kept, whatever the replicas', (t) => {
  t.is(clusterTiming(config({ replicas: 3, leaseTtlMs: 5_000 })).leaseTtlMs, 5_000);
  t.is(clusterTiming(config({ replicas: 1, leaseTtlMs: 20_000 })).leaseTtlMs, 20_000);
  t.like(clusterTiming(config({ replicas: 3, heartbeatMs: 250 })), { leaseTtlMs: 15_000, heartbeatMs: 250, replicas: 3 });
});

test('cluster timing - the default TTL on R3 outlasts the measured leader election; 5 s does not, and is warned about', (t) => {
  // Renews every TTL/3 before a deadline at 4/5 TTL: the last renew before the deadline goes out at 2/3 TTL.
  t.is(tolerableOutageMs(15_000), 10_000);
  t.is(tolerableOutageMs(5_000), 3_332);
  t.is(leaseTtlWarning({ leaseTtlMs: 15_000, replicas: 3 }), null);
  t.is(leaseTtlWarning({ leaseTtlMs: 12_000, replicas: 3 }), null);
  t.is(leaseTtlWarning({ leaseTtlMs: 5_000, replicas: 1 }), null);
  const warning = leaseTtlWarning({ leaseTtlMs: 5_000, replicas: 3 });
  t.regex(warning ?? '', /lease TTL 5000 ms on R3 .* 3332 ms at most, below a NATS leader election \(writes stopped up to 8 s .*the default there is 15000 ms/);
  t.truthy(leaseTtlWarning({ leaseTtlMs: 10_000, replicas: 3 }));
});
