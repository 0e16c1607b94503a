// How many KV writes one client gets from NATS JetStream: `--writers` concurrent loops, each
// doing compare-and-set updates of its own key with a `--value-bytes` value (a host status is
// about 600 bytes of msgpack) for `--seconds`, through metalfleet's own KV adapter, on a single
// server (R1) and on a three-server cluster with the bucket at R3 (as deploy/nats runs it).
// The scale model (docs/scale.md) takes its per-node KV write ceiling from here.
import { connectNats } from '../src/bus/index.ts';
import { startNatsServer } from '../test/support/nats-server.ts';
import { startNatsCluster } from '../test/support/nats-cluster.ts';
import { progress, round } from './cluster-support.ts';
import { intFlag, percentile } from './support.ts';

async function measure(servers: readonly string[], replicas: number, writers: number, seconds: number, valueBytes: number): Promise<object> {
  const transport = await connectNats({ servers: [...servers], name: `bench-kv-r${replicas}` });
  try {
    const kv = await transport.kv('bench-kv', replicas > 1 ? { replicas } : {});
    const value = new Uint8Array(valueBytes).fill(7);
    const latencies: number[] = [];
    const until = performance.now() + seconds * 1000;
    await Promise.all(Array.from({ length: writers }, async (_, w) => {
      const key = `host.w${w}`;
      let revision = await kv.create(key, value);
      while (performance.now() < until) {
        const t0 = performance.now();
        revision = await kv.update(key, value, revision);
        latencies.push(performance.now() - t0);
      }
    }));
    return { replicas, writesPerSecond: Math.round(latencies.length / seconds), p50Ms: round(percentile(latencies, 50), 2), p99Ms: round(percentile(latencies, 99), 2) };
  } finally {
    await transport.close();
  }
}

export async function run(flags: Record<string, string>): Promise<object> {
  const writers = intFlag(flags, 'writers', 64);
  const seconds = intFlag(flags, 'seconds', 10);
  const valueBytes = intFlag(flags, 'value-bytes', 600);
  progress('single nats-server, bucket at R1');
  const single = await startNatsServer();
  let r1: object;
  try {
    r1 = await measure([single.url], 1, writers, seconds, valueBytes);
  } finally {
    await single.dispose();
  }
  progress('three-server JetStream cluster, bucket at R3');
  const cluster = await startNatsCluster();
  let r3: object;
  try {
    r3 = await measure(cluster.urls, 3, writers, seconds, valueBytes);
  } finally {
    await cluster.dispose();
  }
  return { writers, seconds, valueBytes, single: r1, cluster: r3 };
}
