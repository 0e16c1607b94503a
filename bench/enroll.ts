// N hosts enrolled to available on a real Ironic with its redfish driver, against a virtual
// datacenter of N simulated servers: the figure Metal3 publishes (BMO, real Ironic, simulated
// Redfish BMCs: 800 hosts in 328 s, ~146 hosts/min, concurrency 100, inspection and cleaning off),
// measured for metalfleet, and for a plain loop of Ironic HTTP calls (bench/plain-ironic-loop.ts)
// doing the same enrollment at the same concurrency on the same Ironic.
//
// Fairness: the two sides run one after the other, each on an empty Ironic database (the same
// Ironic process restarted empty, same port and config) and the same N servers. Enrollment leaves
// a server as it found it (powered off, no boot override: Ironic only reads its power state and
// BMC), and a second set of N would not fit the Redfish simulator's 1,000 systems at N = 800.
// Running them at the same time, as `bench ironic` does, would halve each side's Ironic and make
// the hosts/min beside Metal3's meaningless.
import { createIronicClient } from '../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../src/adapters/ironic/provisioner/index.ts';
import type { BareMetalHost } from '../src/api/index.ts';
import { demoHost } from '../src/cli/demo/generate.ts';
import { DEFAULT_MACHINE_CONFIG } from '../src/machines/bmh/index.ts';
import { startVirtualDatacenter } from '../src/sim/datacenter/index.ts';
import type { VirtualDatacenter } from '../src/sim/datacenter/index.ts';
import { freePort, startIronic } from '../src/sim/ironic/index.ts';
import type { IronicServer } from '../src/sim/ironic/index.ts';
import { parseMaxCalls } from '../src/cli/max-calls.ts';
import type { CallLimits } from '../src/node/index.ts';
import type { PlainHost, PlainResult } from './plain-ironic-loop.ts';
import { plainEnroll } from './plain-ironic-loop.ts';
import { BenchFlagError, gc, intFlag, prepareLocalBenchNode } from './support.ts';

const TARGET_RATIO = 1.1;
const METAL3_HOSTS_PER_MIN = 146;
const NAMESPACE = 'bench';
const PROGRESS_MS = 10_000;

interface Side extends PlainResult {
  readonly retries?: number;
  readonly callsAtOnce: number;
  readonly callsWaited: number;
  /** From the node's start to its start returning, and to the first registration sent. */
  readonly startMs?: number;
  readonly firstCallMs?: number | null;
}

export async function run(flags: Record<string, string>): Promise<object> {
  const servers = intFlag(flags, 'servers', 800);
  const concurrency = intFlag(flags, 'concurrency', 100);
  // The period both sides poll a node in verifying. bench ironic's redfish figure: a second keeps
  // Ironic's one process answering with hundreds of nodes in flight, and is still a tenth of
  // BMO's 10 s requeue.
  const pollMs = intFlag(flags, 'poll-ms', 1_000);
  const timeoutMs = intFlag(flags, 'timeout', 1_200) * 1000;
  // Enrollment without inspection asks for no capacity slot, so without a bound metalfleet would
  // start every host's registration at once: 800 concurrent requests queue behind Ironic's 100
  // wsgi greenthreads and its one SQLite writer, requests outlive the client's timeout and are sent
  // again (seen: no host available after 140 s). The product bounds those calls per backend
  // (actors/calls, `node --max-calls`); Metal3's "concurrency 100" is BMO's reconcile workers,
  // which bound its Ironic calls, so the bench runs `ironic=<--concurrency>` unless told
  // (`--max-calls 0`: no bound, the figure of issue 30).
  if (flags['gate'] !== undefined) throw new BenchFlagError('--gate is gone: the product bounds these calls now; use --max-calls (e.g. "ironic=100", or 0 for no bound)');
  const maxCalls = flags['max-calls'] ?? `ironic=${concurrency}`;
  const calls = parseMaxCalls([maxCalls]);
  if (servers < 1 || concurrency < 1) throw new BenchFlagError('--servers and --concurrency must be at least 1');
  const say = (line: string): void => void process.stderr.write(`bench enroll: ${line}\n`);

  // What the datacenter alone costs this process: measured around its start, before Ironic or a
  // node exists, so the figure is the simulated servers' and nothing else's.
  gc();
  const before = process.memoryUsage();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  say(`starting ${servers} simulated Redfish servers`);
  // The heartbeat settings bench ironic and the demo use; enrollment never boots an agent.
  const dc = await startVirtualDatacenter({ systems: servers, ironicUrl: url, heartbeatIntervalMs: 5_000, minHeartbeatGapMs: 200 });
  gc();
  const afterDc = process.memoryUsage();
  let ironic: IronicServer | null = null;
  let stopping: Promise<void> | null = null;
  const stopAll = (): Promise<void> => (stopping ??= (async () => {
    await ironic?.stop();
    await dc.stop();
  })());
  // Ironic runs in its own process group: a Ctrl-C that skipped the finally below would leave it.
  const onSignal = (signal: NodeJS.Signals): void => {
    say(`${signal}: stopping Ironic and the datacenter`);
    void stopAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    say('starting a private Ironic (redfish driver)');
    ironic = await startIronic({ port, bootServer: dc.bootServer });
    say(`Ironic at ${ironic.url}; metalfleet: ${servers} hosts, capacity limit ${concurrency}, poll ${pollMs} ms`);
    const mf = await metalfleet(ironic.url, dc, { limit: concurrency, calls, pollMs, timeoutMs, say });
    const mfInIronic = await manageableCount(ironic.url);
    const rssAtEnd = process.memoryUsage().rss;
    say(`metalfleet: ${servers} available in ${round(mf.seconds)} s (${mfInIronic} nodes manageable in Ironic); restarting Ironic empty for the plain loop`);
    await ironic.restartEmpty();
    const plain = await withTimeout(plainEnroll(ironic.url, plainHosts(dc), concurrency, pollMs, progressEvery(servers, (n) => say(`plain loop: ${n}/${servers} manageable`))), timeoutMs, 'the plain loop');
    const plainInIronic = await manageableCount(ironic.url);
    say(`plain loop: ${servers} manageable in ${round(plain.seconds)} s (${plainInIronic} nodes manageable in Ironic)`);
    const hostsPerMin = round((servers * 60) / mf.seconds);
    const plainHostsPerMin = round((servers * 60) / plain.seconds);
    const ratio = round(mf.seconds / plain.seconds);
    return {
      servers,
      concurrency,
      pollMs,
      driver: 'redfish',
      metalfleetMaxCalls: maxCalls,
      // The most registrations and reads the node had at Ironic at once, and how many waited.
      metalfleetCallsAtOnce: mf.callsAtOnce,
      metalfleetCallsWaited: mf.callsWaited,
      // The fixed cost: the node's start, and its first registration, from the clock's zero.
      metalfleetStartMs: round(mf.startMs ?? 0),
      metalfleetFirstCallMs: mf.firstCallMs == null ? null : round(mf.firstCallMs),
      inspection: 'disabled',
      automatedCleaning: 'disabled',
      metalfleetSeconds: round(mf.seconds),
      hostsPerMin,
      metal3HostsPerMin: METAL3_HOSTS_PER_MIN,
      vsMetal3: round(hostsPerMin / METAL3_HOSTS_PER_MIN),
      plainLoopSeconds: round(plain.seconds),
      plainLoopHostsPerMin: plainHostsPerMin,
      ratio,
      target: TARGET_RATIO,
      pass: ratio <= TARGET_RATIO,
      nodesManageableInIronic: { metalfleet: mfInIronic, plainLoop: plainInIronic },
      ironicCallsPerHost: round(mf.calls / servers),
      ironicRetries: mf.retries ?? 0,
      plainLoopCallsPerHost: round(plain.calls / servers),
      callsPerHostByRoute: perHost(mf.byRoute, servers),
      plainLoopCallsPerHostByRoute: perHost(plain.byRoute, servers),
      memoryPerServerKiB: {
        rssDelta: round((afterDc.rss - before.rss) / servers / 1024),
        heapDelta: round((afterDc.heapUsed - before.heapUsed) / servers / 1024),
        // The whole bench process (datacenter, node, hosts) at the end of the metalfleet run.
        rssTotal: round(rssAtEnd / servers / 1024),
      },
    };
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    say('stopping Ironic and the datacenter');
    await stopAll();
  }
}

interface MetalfleetOptions {
  readonly limit: number;
  /** The node's per-backend bound on calls without a slot (`--max-calls`). */
  readonly calls: CallLimits;
  readonly pollMs: number;
  readonly timeoutMs: number;
  readonly say: (line: string) => void;
}

// One BareMetalHost per server, as `demo --datacenter` writes them (datacenterFleet), less the
// image, with inspection and automated cleaning off: Metal3's enrollment benchmark. Offline,
// because an online host is powered on once available (BMO does the same): a BMC call after the
// mark, which the plain loop does not make and which would take Ironic's time from the hosts
// still enrolling.
function fleet(dc: VirtualDatacenter): unknown[] {
  return dc.systems.flatMap((system, i) => {
    const name = `server-${String(i).padStart(5, '0')}`;
    const secret = `${name}-bmc`;
    const host: BareMetalHost = demoHost(name, { address: system.address, credentialsName: secret }, system.macs[0], { online: false, inspectionMode: 'disabled', automatedCleaningMode: 'disabled' });
    return [
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: secret, namespace: NAMESPACE }, type: 'Opaque', stringData: { username: system.username, password: system.password } },
      { ...host, metadata: { ...host.metadata, namespace: NAMESPACE } },
    ];
  });
}

async function metalfleet(url: string, dc: VirtualDatacenter, o: MetalfleetOptions): Promise<Side> {
  const hosts = dc.systems.length;
  const client = createIronicClient({ endpoint: url });
  await client.connect();
  const provisioner = createIronicProvisioner({
    client,
    driverOverride: null,
    deploy: dc.deployImages,
    polls: { shortMs: o.pollMs, longMs: o.pollMs },
    imageCheck: { enabled: false },
  });
  // The fixed cost before any host's work: when the node's start returned, and when the first
  // registration reached the provisioner (the plain loop's first call is at its clock's zero).
  let firstCall: number | null = null;
  const timed: typeof provisioner = {
    ...provisioner,
    register: (host, args) => {
      firstCall ??= performance.now();
      return provisioner.register(host, args);
    },
  };
  // Applied before the clock starts: the figure is the node's, from its start, not the store's.
  const prepared = await prepareLocalBenchNode(fleet(dc));
  client.stats.reset();
  const started = performance.now();
  try {
    const node = await prepared.start({
      name: 'bench-enroll', shardCount: 64,
      machine: { ...DEFAULT_MACHINE_CONFIG, powerPollMs: 3_600_000 },
      // Enrollment without inspection or an image asks for no slot (BMO's capacity check gates
      // inspecting, provisioning and deprovisioning): the limit is set as Metal3 ran, and reported.
      capacity: { limits: {}, defaultLimit: o.limit, ttlMs: 60_000 },
      supervision: { maxRestarts: 5, windowMs: 60_000, backoff: { initialMs: 100, maxMs: 5_000 } },
      askTimeoutMs: 10_000,
      calls: o.calls,
    }, { provisioner: timed });
    const startMs = performance.now() - started;
    const progress = setInterval(() => {
      const byState = [...node.stats.byState].filter(([, n]) => n > 0).map(([s, n]) => `${s || '(new)'} ${n}`).join(', ');
      // Hosts held by an error wait out a backoff: the first one's words say why the run stalls.
      const errored = [...node.stats.hosts].filter(([, h]) => h.errorType);
      const why = errored[0] ? `; ${errored.length} in error (${errored[0][0]}: ${errored[0][1].errorType}: ${errored[0][1].error ?? ''})` : '';
      o.say(`metalfleet: ${round((performance.now() - started) / 1000)} s: ${byState}; ${client.stats.total} Ironic calls${why}`);
    }, PROGRESS_MS);
    try {
      await withTimeout(new Promise<void>((resolve) => {
        const done = (): boolean => node.stats.count('available') === hosts;
        if (done()) return resolve();
        const off = node.stats.onChange(() => {
          if (!done()) return;
          off();
          resolve();
        });
      }), o.timeoutMs, () => `metalfleet (${[...node.stats.byState].filter(([, n]) => n > 0).map(([s, n]) => `${s || '(new)'} ${n}`).join(', ')}; errors: ${[...node.stats.hosts].filter(([, h]) => h.errorType).slice(0, 5).map(([k, h]) => `${k} ${h.errorType}`).join(', ') || 'none'})`);
    } finally {
      clearInterval(progress);
    }
    const ironicCalls = node.backendCalls().find((c) => c.backend.startsWith('ironic:'));
    return {
      seconds: (performance.now() - started) / 1000, calls: client.stats.total, byRoute: { ...client.stats.byRoute }, retries: client.stats.retries,
      callsAtOnce: ironicCalls?.maxInFlight ?? 0, callsWaited: ironicCalls?.waitedTotal ?? 0,
      startMs, firstCallMs: firstCall === null ? null : firstCall - started,
    };
  } finally {
    await prepared.stop();
    client.close();
  }
}

function plainHosts(dc: VirtualDatacenter): PlainHost[] {
  // The loop's node body needs an image for its deploy half; enrollment never reads it.
  const image = { url: dc.images.urlOf('os.img'), sha256: dc.images.checksum('os.img', 'sha256') };
  return dc.systems.map((s, i) => ({
    name: `server-${String(i).padStart(5, '0')}`,
    mac: s.macs[0] ?? '',
    driver: 'redfish',
    bmc: { redfishAddress: s.redfishAddress, systemPath: s.systemPath, username: s.username, password: s.password },
    image,
    deploy: { kernelUrl: dc.deployImages.kernelUrl, ramdiskUrl: dc.deployImages.ramdiskUrl },
  }));
}

// Ironic's own count, so the figure cannot come from a state metalfleet believes and Ironic does not hold.
async function manageableCount(url: string): Promise<number> {
  // Ironic pages at max_limit (1,000), more than the Redfish simulator serves systems.
  const res = await fetch(`${url}/v1/nodes?provision_state=manageable&limit=1000`, { headers: { 'X-OpenStack-Ironic-API-Version': '1.81' } });
  if (!res.ok) throw new Error(`bench enroll: GET /v1/nodes?provision_state=manageable: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
  const body = (await res.json()) as { nodes: unknown[] };
  return body.nodes.length;
}

// A progress callback that speaks at every tenth of the fleet.
function progressEvery(total: number, say: (n: number) => void): (n: number) => void {
  const step = Math.max(1, Math.ceil(total / 10));
  return (n) => {
    if (n % step === 0 || n === total) say(n);
  };
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string | (() => string)): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`bench enroll: ${typeof what === 'string' ? what : what()} did not finish within ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

function perHost(byRoute: Readonly<Record<string, number>>, hosts: number): Record<string, number> {
  return Object.fromEntries(Object.entries(byRoute).sort((a, b) => b[1] - a[1]).map(([route, n]) => [route, round(n / hosts)]));
}

function round(n: number): number {
  return Number(n.toFixed(2));
}
