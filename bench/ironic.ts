// N hosts through their whole life on a real Ironic, by metalfleet and by a plain concurrent HTTP
// loop (bench/plain-ironic-loop.ts) doing the same cycle, at the same time on the same Ironic.
// By default Ironic runs its real redfish drivers against a virtual datacenter of 2N servers (N
// for each side): BMC calls, iPXE boots, agent heartbeats, image writes and config drives are all
// real work, and the two sides share every queue Ironic has. Ironic is the bottleneck on two
// cores, so what matters is the ratio: metalfleet's own overhead and scheduling. --driver fake
// runs the old fast variant on fake-hardware (no datacenter).
import { createIronicClient } from '../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../src/adapters/ironic/provisioner/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../src/machines/bmh/index.ts';
import { startVirtualDatacenter } from '../src/sim/datacenter/index.ts';
import type { VirtualDatacenter } from '../src/sim/datacenter/index.ts';
import { freePort, startIronic } from '../src/sim/ironic/index.ts';
import type { PlainHost } from './plain-ironic-loop.ts';
import { plainLoop } from './plain-ironic-loop.ts';
import { BenchFlagError, intFlag, startLocalBenchNode } from './support.ts';

const TARGET_RATIO = 1.1;

type Driver = 'redfish' | 'fake';

// What one host is, for both sides: metalfleet gets it as a BareMetalHost, the loop as a node body.
interface BenchHost {
  readonly name: string;
  readonly mac: string;
  readonly bmc: { readonly address: string; readonly redfishAddress: string; readonly systemPath: string; readonly username: string; readonly password: string };
}

interface Side { readonly seconds: number; readonly calls: number; readonly byRoute: Record<string, number> }

export async function run(flags: Record<string, string>): Promise<object> {
  const hosts = intFlag(flags, 'hosts', 10);
  const concurrency = intFlag(flags, 'concurrency', 20);
  const driver = (flags['driver'] ?? 'redfish') as Driver;
  if (driver !== 'redfish' && driver !== 'fake') throw new BenchFlagError(`--driver: "redfish" (default) or "fake", got "${String(flags['driver'])}"`);
  // Ironic is one Python process: 2N hosts polled every 100 ms with real drivers answer in tens of
  // seconds, and the agents' lookups time out (the sim agent then holds a refused token). A second
  // is still ten times BMO's 10 s poll. Both sides poll at the same period.
  const pollMs = intFlag(flags, 'poll-ms', driver === 'redfish' ? 1_000 : 100);
  const timeoutMs = intFlag(flags, 'timeout', 600) * 1000;
  // One after the other instead of at the same time: each side has Ironic to itself.
  const sequential = flags['sequential'] === 'true';
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // IPA heartbeats every few minutes, and at once when a command ends (the short gap). Each
  // heartbeat is a write to Ironic's SQLite: 2N agents beating every second starve the agents'
  // token lookups, which then outlast the agent's 10 s timeout. Both sides share the same agents.
  const dc = driver === 'redfish' ? await startVirtualDatacenter({ systems: 2 * hosts, ironicUrl: url, heartbeatIntervalMs: intFlag(flags, 'heartbeat-ms', 5_000), minHeartbeatGapMs: 200 }) : null;
  const ironic = await startIronic({ port, ...(dc ? { bootServer: dc.bootServer } : {}) });
  try {
    const all = benchHosts(dc, 2 * hosts);
    const image = dc ? { url: dc.images.urlOf('os.img'), sha256: dc.images.checksum('os.img', 'sha256') } : { url: 'http://images.lab/os.img', sha256: 'a'.repeat(64) };
    const deploy = dc ? { kernelUrl: dc.deployImages.kernelUrl, ramdiskUrl: dc.deployImages.ramdiskUrl } : null;
    const mfRun = (): Promise<Side> => metalfleet(ironic.url, all.slice(0, hosts), { limit: concurrency, pollMs, driver, image, deploy, timeoutMs });
    const plainHosts: PlainHost[] = all.slice(hosts).map((h) => ({ ...h, driver, image, deploy }));
    const plainRun = (): Promise<Side> => withTimeout(plainLoop(ironic.url, plainHosts, concurrency, pollMs), timeoutMs, 'the plain loop');
    const [mf, plain] = sequential ? [await mfRun(), await plainRun()] : await Promise.all([mfRun(), plainRun()]);
    const ratio = round(mf.seconds / plain.seconds);
    return {
      driver,
      hosts,
      concurrency,
      pollMs,
      together: !sequential,
      metalfleetSeconds: round(mf.seconds),
      plainLoopSeconds: round(plain.seconds),
      ratio,
      target: TARGET_RATIO,
      pass: ratio <= TARGET_RATIO,
      ironicCallsPerHost: round(mf.calls / hosts),
      plainLoopCallsPerHost: round(plain.calls / hosts),
      callsPerHostByRoute: perHost(mf.byRoute, hosts),
      plainLoopCallsPerHostByRoute: perHost(plain.byRoute, hosts),
    };
  } finally {
    await ironic.stop();
    await dc?.stop();
  }
}

function benchHosts(dc: VirtualDatacenter | null, count: number): BenchHost[] {
  return Array.from({ length: count }, (_, i) => {
    const system = dc?.systems[i];
    const name = `bench-${i}`;
    if (system) return { name, mac: system.macs[0] ?? '', bmc: { address: system.address, redfishAddress: system.redfishAddress, systemPath: system.systemPath, username: system.username, password: system.password } };
    // fake-hardware never calls the BMC: any address will do.
    const ip = `10.1.${i >> 8}.${i & 255}`;
    return { name, mac: `52:54:02:00:${hex(i >> 8)}:${hex(i)}`, bmc: { address: `redfish://${ip}/redfish/v1/Systems/1`, redfishAddress: `https://${ip}`, systemPath: '/redfish/v1/Systems/1', username: 'admin', password: 'bench' } };
  });
}

interface MetalfleetOptions {
  readonly limit: number;
  readonly pollMs: number;
  readonly driver: Driver;
  readonly image: { readonly url: string; readonly sha256: string };
  readonly deploy: { readonly kernelUrl: string; readonly ramdiskUrl: string } | null;
  readonly timeoutMs: number;
}

async function metalfleet(url: string, hosts: readonly BenchHost[], o: MetalfleetOptions): Promise<Side> {
  const client = createIronicClient({ endpoint: url });
  await client.connect();
  const provisioner = createIronicProvisioner({
    client,
    driverOverride: o.driver === 'fake' ? { hardwareType: 'fake-hardware' } : null,
    ...(o.deploy ? { deploy: o.deploy } : {}),
    polls: { shortMs: o.pollMs, longMs: o.pollMs },
    imageCheck: { enabled: false },
  });
  const objects: unknown[] = [];
  for (const h of hosts) {
    objects.push(
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${h.name}-bmc`, namespace: 'bench' }, stringData: { username: h.bmc.username, password: h.bmc.password } },
      {
        apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: h.name, namespace: 'bench' },
        spec: {
          online: true, bootMode: 'UEFI', automatedCleaningMode: 'metadata',
          // Out-of-band inspection: Ironic 21.4 has no agent inspection without ironic-inspector.
          inspectionMode: 'fast',
          bmc: { address: h.bmc.address, credentialsName: `${h.name}-bmc` },
          bootMACAddress: h.mac,
          image: { url: o.image.url, checksum: o.image.sha256, checksumType: 'sha256', format: 'raw' },
        },
      },
    );
  }
  client.stats.reset();
  const started = performance.now();
  const { node, store, stop } = await startLocalBenchNode({
    name: 'bench-ironic', shardCount: 64,
    machine: { ...DEFAULT_MACHINE_CONFIG, powerPollMs: 3_600_000 },
    capacity: { limits: {}, defaultLimit: o.limit, ttlMs: 60_000 },
    supervision: { maxRestarts: 5, windowMs: 60_000, backoff: { initialMs: 100, maxMs: 5_000 } },
    askTimeoutMs: 10_000,
  }, [], { provisioner });
  const byKey = new Map(objects.filter((x) => (x as { kind: string }).kind === 'BareMetalHost').map((x) => [`bench/${(x as { metadata: { name: string } }).metadata.name}`, x as { spec: Record<string, unknown> }]));
  // Each host's whole life: once provisioned its image is removed; once back to available it is
  // deleted. Done when every host is gone.
  const provisioned = new Set<string>();
  const deleted = new Set<string>();
  try {
    await withTimeout(new Promise<void>((resolve) => {
      const off = node.stats.onChange(() => {
        for (const [key, h] of node.stats.hosts) {
          if (h.state === 'provisioned' && !provisioned.has(key)) {
            provisioned.add(key);
            const x = byKey.get(key);
            if (x) void store.applyObjects([{ ...x, spec: { ...x.spec, image: undefined } }], 'bench');
          } else if (h.state === 'available' && provisioned.has(key) && !deleted.has(key)) {
            deleted.add(key);
            void store.requestDelete(key);
          }
        }
        if (node.stats.goneCount === hosts.length) {
          off();
          resolve();
        }
      });
      void store.applyObjects(objects, 'bench');
    }), o.timeoutMs, () => `metalfleet (hosts: ${[...node.stats.hosts].map(([k, h]) => `${k} ${h.state}${h.errorType ? ` ${h.errorType}` : ''}`).join(', ')})`);
    return { seconds: (performance.now() - started) / 1000, calls: client.stats.total, byRoute: { ...client.stats.byRoute } };
  } finally {
    await stop();
    client.close();
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string | (() => string)): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`bench ironic: ${typeof what === 'string' ? what : what()} did not finish within ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

function perHost(byRoute: Record<string, number>, hosts: number): Record<string, number> {
  return Object.fromEntries(Object.entries(byRoute).sort((a, b) => b[1] - a[1]).map(([route, n]) => [route, round(n / hosts)]));
}

function round(n: number): number {
  return Number(n.toFixed(2));
}

function hex(n: number): string {
  return (n & 0xff).toString(16).padStart(2, '0');
}
