import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { FleetStats, Node, NodeBackends, NodeConfig, Substrate } from '../src/node/index.ts';
import { memorySubstrate, startNode } from '../src/node/index.ts';
import { openLocalStore } from '../src/adapters/store/local-store.ts';
import type { LocalStore } from '../src/adapters/store/local-store.ts';
import type { KvStore } from '../src/adapters/store/kv-store.ts';
import { silentLogger } from '../src/ports/index.ts';
import type { BareMetalHost } from '../src/api/index.ts';

/**
 * A bad flag of a bench: bench/run.ts prints its message alone and exits 2, as the CLI does,
 * where any other error keeps its stack (a stack through run.ts only hid which flag was wrong).
 */
export class BenchFlagError extends Error {}

export function intFlag(flags: Record<string, string>, name: string, fallback: number): number {
  const raw = flags[name];
  if (raw === undefined) return fallback;
  // Number('') is 0: `--hosts=` ran the bench with no hosts.
  const n = raw.trim() === '' ? Number.NaN : Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new BenchFlagError(`--${name}: expected a number >= 0, got "${raw}"`);
  return n;
}

export function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) {
    g();
    g();
  }
}

export function eventLoopMonitor(): { p99Ms(): number; stop(): void } {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  return { p99Ms: () => h.percentile(99) / 1e6, stop: () => h.disable() };
}

// Resolves when predicate holds, checked on every state change the hosts report.
export function until(stats: FleetStats, predicate: () => boolean, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    if (predicate()) return resolve();
    const timer = setTimeout(() => {
      off();
      reject(new Error(`benchmark did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = stats.onChange(() => {
      if (!predicate()) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

export function hosts(count: number, opts: { inspection: boolean; scheme?: string }): unknown[] {
  const out: unknown[] = [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bmc', namespace: 'bench' }, stringData: { username: 'admin', password: 'secret' } }];
  for (let i = 0; i < count; i++) {
    const host: BareMetalHost = {
      apiVersion: 'metal3.io/v1alpha1',
      kind: 'BareMetalHost',
      metadata: { name: `host-${i}`, namespace: 'bench' },
      spec: {
        online: true,
        bootMode: 'UEFI',
        automatedCleaningMode: 'metadata',
        bmc: { address: `${opts.scheme ?? 'ipmi'}://10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, credentialsName: 'bmc' },
        bootMACAddress: `52:54:00:${hex(i >> 16)}:${hex(i >> 8)}:${hex(i)}`,
        image: { url: 'http://images/os.qcow2', checksum: 'abc', checksumType: 'sha256' },
        ...(opts.inspection ? {} : { inspectionMode: 'disabled' as const }),
      },
    };
    out.push(host);
  }
  return out;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

function hex(n: number): string {
  return (n & 0xff).toString(16).padStart(2, '0');
}

export interface LocalBenchOptions {
  /** Open the object store of the MAAS kinds beside the hosts (store.objects). */
  readonly objects?: boolean;
}

/**
 * The embedded default as `metalfleet demo` runs it: the one node on a private memory bus and KV,
 * hosts in the KV store, their Secrets beside it. `objects` are applied by prepare; start() starts
 * the node, so a bench can time the node alone.
 */
export async function prepareLocalBenchNode(objects: readonly unknown[], options: LocalBenchOptions = {}): Promise<{ store: LocalStore; resources: KvStore; substrate: Substrate; start(config: NodeConfig, backends: NodeBackends): Promise<Node>; stop(): Promise<void> }> {
  const substrate = memorySubstrate();
  // The MAAS kinds go where the demo puts them: the one KV store on the same memory KV.
  const store = await openLocalStore(substrate.transport, options.objects ? { maas: {} } : {});
  if (objects.length > 0) {
    // In slices, as the demo applies a generated fleet: one apply of 100,000 hosts holds every
    // intermediate of them at once.
    for (let i = 0; i < objects.length; i += 2_000) {
      const applied = await store.applyObjects(objects.slice(i, i + 2_000), 'bench');
      if (!applied.ok) throw new Error(`bench manifests invalid: ${applied.issues.map((x) => `${x.path}: ${x.message}`).join('; ')}`);
    }
  }
  // The one store the node runs on, over the local store's records (a bench may count its reads).
  const resources = store.resources;
  let node: Node | null = null;
  return {
    store,
    resources,
    substrate,
    async start(config, backends) {
      node = await startNode({ ...config, cluster: { drainTimeoutMs: 5_000 } }, substrate, { store: resources }, backends, { log: silentLogger });
      return node;
    },
    async stop() {
      await node?.stop({ graceful: false });
      await store.objects?.close();
      await store.close();
      await substrate.transport.close();
    },
  };
}

export async function startLocalBenchNode(config: NodeConfig, objects: readonly unknown[], backends: NodeBackends, options: LocalBenchOptions = {}): Promise<{ node: Node; store: LocalStore; stop(): Promise<void> }> {
  const prepared = await prepareLocalBenchNode(objects, options);
  const node = await prepared.start(config, backends);
  return { node, store: prepared.store, stop: prepared.stop };
}
