// N hosts through their whole life on a real Ironic, by metalfleet and by a plain concurrent
// HTTP loop, on the same Ironic in the same run. Ironic (fake-hardware) is the bottleneck on two
// cores, so what matters is the ratio: metalfleet's own overhead and scheduling.
import { createIronicClient } from '../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../src/adapters/ironic/provisioner/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../src/machines/bmh/index.ts';
import { startIronic } from '../test/support/ironic.ts';
import { plainLoop } from './plain-ironic-loop.ts';
import { intFlag, startLocalBenchNode } from './support.ts';

export async function run(flags: Record<string, string>): Promise<object> {
  const hosts = intFlag(flags, 'hosts', 100);
  const concurrency = intFlag(flags, 'concurrency', 20);
  const pollMs = intFlag(flags, 'poll-ms', 100);
  const ironic = await startIronic();
  try {
    const mf = await metalfleet(ironic.url, hosts, concurrency, pollMs);
    const plain = await plainLoop(ironic.url, Array.from({ length: hosts }, (_, i) => `bench~p-${i}`), concurrency, pollMs);
    const byRoute = Object.fromEntries(Object.entries(mf.byRoute).sort((a, b) => b[1] - a[1]).map(([route, n]) => [route, Number((n / hosts).toFixed(2))]));
    return {
      hosts,
      concurrency,
      pollMs,
      metalfleetSeconds: round(mf.seconds),
      plainLoopSeconds: round(plain.seconds),
      ratio: round(mf.seconds / plain.seconds),
      ironicCallsPerHost: round(mf.calls / hosts),
      plainLoopCallsPerHost: round(plain.calls / hosts),
      callsPerHostByRoute: byRoute,
    };
  } finally {
    await ironic.stop();
  }
}

async function metalfleet(url: string, count: number, limit: number, pollMs: number): Promise<{ seconds: number; calls: number; byRoute: Record<string, number> }> {
  const client = createIronicClient({ endpoint: url });
  await client.connect();
  const provisioner = createIronicProvisioner({ client, driverOverride: { hardwareType: 'fake-hardware' }, polls: { shortMs: pollMs, longMs: pollMs }, imageCheck: { enabled: false } });
  const objects: unknown[] = [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bmc', namespace: 'bench' }, stringData: { username: 'admin', password: 'bench' } }];
  for (let i = 0; i < count; i++) {
    objects.push({
      apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: `m-${i}`, namespace: 'bench' },
      spec: {
        online: true, bmc: { address: `redfish://10.1.${i >> 8}.${i & 255}/redfish/v1/Systems/1`, credentialsName: 'bmc' },
        bootMACAddress: `52:54:02:00:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`,
        image: { url: 'http://images.lab/os.qcow2', checksum: 'a'.repeat(64), checksumType: 'sha256' },
      },
    });
  }
  client.stats.reset();
  const started = performance.now();
  const { node, store, stop } = await startLocalBenchNode({
    name: 'bench-ironic', shardCount: 64,
    machine: { ...DEFAULT_MACHINE_CONFIG, powerPollMs: 3_600_000 },
    capacity: { limits: {}, defaultLimit: limit, ttlMs: 60_000 },
    supervision: { maxRestarts: 5, windowMs: 60_000, backoff: { initialMs: 100, maxMs: 5_000 } },
    askTimeoutMs: 10_000,
  }, [], { provisioner });
  const byKey = new Map(objects.slice(1).map((o) => [`bench/${(o as { metadata: { name: string } }).metadata.name}`, o as { spec: Record<string, unknown> }]));
  // Each host's whole life: once provisioned its image is removed; once back to available it is
  // deleted. Done when every host is gone.
  const provisioned = new Set<string>();
  const deleted = new Set<string>();
  await new Promise<void>((resolve) => {
    const off = node.stats.onChange(() => {
      for (const [key, h] of node.stats.hosts) {
        if (h.state === 'provisioned' && !provisioned.has(key)) {
          provisioned.add(key);
          const o = byKey.get(key);
          if (o) void store.applyObjects([{ ...o, spec: { ...o.spec, image: undefined } }], 'bench');
        } else if (h.state === 'available' && provisioned.has(key) && !deleted.has(key)) {
          deleted.add(key);
          void store.requestDelete(key);
        }
      }
      if (node.stats.goneCount === count) {
        off();
        resolve();
      }
    });
    void store.applyObjects(objects, 'bench');
  });
  const seconds = (performance.now() - started) / 1000;
  await stop();
  return { seconds, calls: client.stats.total, byRoute: { ...client.stats.byRoute } };
}

function round(n: number): number {
  return Number(n.toFixed(2));
}
