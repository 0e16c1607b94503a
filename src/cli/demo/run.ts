import type { Writable } from 'node:stream';
import type { BareMetalHost } from '../../api/index.ts';
import type { CapacityFigures } from '../../node/index.ts';
import type { NodeConfig, Substrate } from '../../node/index.ts';
import { startNode } from '../../node/index.ts';
import type { MaasShards } from '../../node/index.ts';
import { CONTROL_PLANE_LABEL } from '../../api/index.ts';
import type { MaasMachineConfig } from '../../machines/maas-machine/index.ts';
import type { Logger, MaasDriver, Provisioner, ResourceStore } from '../../ports/index.ts';
import { resourceKey as hostKey } from '../../ports/index.ts';
import type { SecretSource } from '../../adapters/store/nats-secrets.ts';
import type { Expectation } from './expect.ts';
import { expectationFor, meets } from './expect.ts';
import { progressLine, progressPanel } from './progress.ts';
import type { ProgressFrame } from './progress.ts';

/** The MAAS kinds run on the demo's one store, beside the hosts. */
export interface DemoMaas {
  readonly driver: MaasDriver;
  readonly config?: Partial<MaasMachineConfig>;
}

export interface DemoOptions {
  readonly maas?: DemoMaas;
  /** The one node runs on this (the embedded default: a private memory bus and KV). */
  readonly substrate: Substrate;
  /** Every kind the node runs (the local KV store: hosts and, with `maas`, the MAAS kinds). */
  readonly store: ResourceStore;
  /** The Secrets the hosts name, watched so a changed one reaches its hosts (new BMC credentials register again). */
  readonly secrets?: SecretSource;
  readonly provisioner: Provisioner;
  readonly node: NodeConfig;
  readonly log: Logger;
  readonly timeoutMs: number;
  readonly out: Writable;
  readonly mode: 'tty' | 'lines' | 'quiet';
  // Hosts named demo-* behave as the fixture's scenarios (only with the fixture backend).
  readonly demoScenarios: boolean;
  /** Awaited once the hosts got there, before the node stops: `demo --ui` keeps the page live until Ctrl-C. */
  readonly holdOpen?: (summary: DemoSummary) => Promise<void>;
}

export interface DemoSummary {
  readonly ok: boolean;
  readonly hosts: number;
  readonly reached: number;
  readonly seconds: number;
  readonly hostsPerSecond: number;
  readonly byState: Record<string, number>;
  readonly notReached: ReadonlyArray<{ host: string; expected: string; actual: string }>;
  readonly capacity: CapacityFigures | null;
  readonly maas: MaasSummary | null;
}

export interface MaasSummary {
  readonly machines: number;
  readonly ready: number;
  readonly dnsName: string | null;
  readonly dnsIps: readonly string[];
  readonly controlPlaneIps: readonly string[];
  readonly ok: boolean;
}

// Runs the embedded node until every host sits where its spec says it should (or time runs out),
// showing progress as it goes.
export async function runDemo(o: DemoOptions): Promise<DemoSummary> {
  const hosts = await o.store.list('BareMetalHost');
  const expected = new Map<string, Expectation>(hosts.map((h: BareMetalHost) => [hostKey(h), expectationFor(h, o.demoScenarios)]));
  const started = performance.now();
  const running = await startNode(o.node, o.substrate, { store: o.store, ...(o.secrets ? { secrets: o.secrets } : {}) }, {
    provisioner: o.provisioner,
    ...(o.maas ? { maas: { driver: o.maas.driver, clusterResyncMs: 1_000, ...(o.maas.config ? { config: o.maas.config } : {}) } } : {}),
  }, { log: o.log });
  const node = { stats: running.shards.stats, maas: running.maas, capacity: () => running.capacity() };
  let maas: MaasSummary | null = null;
  const maasDone = (): boolean => maas === null ? o.maas === undefined : maas.ok;
  let capacity: CapacityFigures | null = null;
  let capacityAt = 0;
  // One question to the broker at a time: a new one every frame piled up behind a busy broker.
  let askingCapacity = false;
  const askCapacity = (): void => {
    if (askingCapacity) return;
    askingCapacity = true;
    node.capacity().then((c) => {
      capacity = c;
      capacityAt = performance.now();
    }, () => undefined).finally(() => {
      askingCapacity = false;
    });
  };
  let drawn = 0;
  // The end check looks only at hosts that changed since it last ran: with 100,000 hosts a full
  // scan on every burst of changes was quadratic and starved the hosts themselves.
  const met = new Set<string>();
  let dirty = new Set<string>(expected.keys());
  const countReached = (): number => {
    const keys = dirty;
    dirty = new Set();
    for (const key of keys) {
      const e = expected.get(key);
      if (e === undefined) continue;
      if (meets(node.stats.hosts.get(key), e)) met.add(key);
      else met.delete(key);
    }
    return met.size;
  };
  const frame = (reached: number): ProgressFrame => {
    const elapsedMs = performance.now() - started;
    const capacityAgeMs = capacity === null ? undefined : performance.now() - capacityAt;
    return { elapsedMs, reached, total: expected.size, stats: node.stats, capacity, ...(capacityAgeMs !== undefined ? { capacityAgeMs } : {}), maas, hostsPerSecond: reached / Math.max(elapsedMs / 1000, 0.001) };
  };
  const render = (reached: number): void => {
    if (o.mode === 'quiet') return;
    if (o.mode === 'lines') {
      o.out.write(`${progressLine(frame(reached))}\n`);
      return;
    }
    const lines = progressPanel(frame(reached));
    // Back to the panel's first line, redraw, and erase whatever a longer previous frame left.
    o.out.write(`${drawn > 0 ? `\x1b[${drawn}F` : ''}${lines.map((l) => `\x1b[2K${l}`).join('\n')}\n\x1b[J`);
    drawn = lines.length;
  };

  const deadline = started + o.timeoutMs;
  let reached = 0;
  let lastLine = 0;
  // The end check reacts to state changes; the timer only paints and enforces the deadline.
  await new Promise<void>((resolve) => {
    const check = (): void => {
      reached = countReached();
      if (reached === expected.size && maasDone()) finish();
    };
    let pending = false;
    const unsubscribe = node.stats.onChange((key) => {
      dirty.add(key);
      if (pending) return;
      pending = true;
      setImmediate(() => {
        pending = false;
        check();
      });
    });
    const paint = setInterval(() => {
      askCapacity();
      if (o.maas) void maasSummary(o.store, node.maas).then((m) => { maas = m; check(); }, () => undefined);
      const now = performance.now();
      if (o.mode === 'tty' || now - lastLine >= 1000) {
        lastLine = now;
        render(reached);
      }
      if (now >= deadline) finish();
    }, o.mode === 'tty' ? 200 : 250);
    function finish(): void {
      clearInterval(paint);
      unsubscribe();
      resolve();
    }
    check();
  });
  capacity = await node.capacity().catch(() => capacity);
  if (o.maas) maas = await maasSummary(o.store, node.maas).catch(() => maas);
  const seconds = (performance.now() - started) / 1000;
  render(reached);
  const notReached: Array<{ host: string; expected: string; actual: string }> = [];
  for (const [key, e] of expected) {
    const s = node.stats.hosts.get(key);
    if (!meets(s, e)) notReached.push({ host: key, expected: describe(e.state, e.errorType), actual: s ? describe(s.state, s.errorType) : 'not started' });
  }
  const byState: Record<string, number> = {};
  for (const [state, n] of node.stats.byState) if (n > 0) byState[state || 'none'] = n;
  const summary: DemoSummary = { ok: notReached.length === 0 && (maas?.ok ?? o.maas === undefined), maas, hosts: expected.size, reached, seconds, hostsPerSecond: reached / Math.max(seconds, 0.001), byState, notReached, capacity };
  // The summary is told before the hold: a script reading stdout has its answer while the page stays.
  await o.holdOpen?.(summary);
  await running.stop({ graceful: true });
  return summary;
}

function describe(state: string, errorType: string): string {
  return errorType ? `${state} (${errorType})` : state;
}

// Every MaasMachine ready, and the cluster's DNS record holding exactly the control-plane IPs.
async function maasSummary(store: ResourceStore, runtime: MaasShards | null): Promise<MaasSummary> {
  const machines = await store.list('MaasMachine');
  const ready = machines.filter((m) => (m.status as { ready?: boolean } | undefined)?.ready === true).length;
  const controlPlaneIps = machines
    .filter((m) => m.metadata.labels && CONTROL_PLANE_LABEL in m.metadata.labels)
    .flatMap((m) => ((m.status as { addresses?: Array<{ type: string; address: string }> } | undefined)?.addresses ?? []).filter((a) => a.type === 'ExternalIP').map((a) => a.address).slice(0, 1))
    .sort();
  const clusters = await store.list('MaasCluster');
  const first = clusters[0];
  const dns = first && runtime ? await runtime.dns(`${first.metadata.namespace}/${first.metadata.name}`, 2_000) : null;
  const dnsIps = [...(dns?.ips ?? [])].sort();
  const ok = machines.length > 0 && ready === machines.length && dnsIps.length === controlPlaneIps.length && dnsIps.every((ip, i) => ip === controlPlaneIps[i]);
  return { machines: machines.length, ready, dnsName: dns?.dnsName ?? null, dnsIps, controlPlaneIps, ok };
}
