// A whole cluster on one machine for tests and benches: a private nats-server (or, with
// `nats: 'cluster'`, three routed into one JetStream cluster with R3 buckets), the shared fixture
// backend (one process-wide "datacenter" every node drives), a NATS store client to apply hosts
// and read status, and `metalfleet node` child processes that can be stopped, killed or cut off.
import type { ExecutionContext } from 'ava';
import { MAAS_VALIDATORS } from '../../src/adapters/store/object-apply.ts';
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { FixtureServer } from '../../src/adapters/fixture/remote/index.ts';
import { startFixtureServer } from '../../src/adapters/fixture/remote/index.ts';
import type { FixtureOptions } from '../../src/adapters/fixture/index.ts';
import type { NatsStore } from '../../src/adapters/store/nats-store.ts';
import { openNatsStoreOn } from '../../src/adapters/store/nats-store.ts';
import type { KvStore } from '../../src/adapters/store/kv-store.ts';
import { openKvStoreOn } from '../../src/adapters/store/kv-store.ts';
import type { MaasSim, MaasSimOptions } from '../../src/sim/maas/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import type { BareMetalHost } from '../../src/api/index.ts';
import { connectNats } from '../../src/bus/index.ts';
import type { OwnershipRecord } from '../../src/cluster/index.ts';
import { parseOwnershipLog } from '../../src/cluster/index.ts';
import type { Transport } from '../../src/ports/index.ts';
import type { NatsCluster } from './nats-cluster.ts';
import { startNatsCluster } from './nats-cluster.ts';
import type { NatsServer } from './nats-server.ts';
import { startNatsServer } from './nats-server.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// The V8 flags of the installed command (its shebang: a larger young generation), which a spawn of
// process.execPath would otherwise leave out: the nodes here run as a production node does.
const BIN_FLAGS = (readFileSync(join(ROOT, 'bin/metalfleet.js'), 'utf8').split('\n', 1)[0] ?? '').split(/\s+/).filter((arg) => arg.startsWith('--'));

// Node processes die with the test process, however it ends (a timeout kills it with a signal).
const children = new Set<ChildProcess>();
const killAll = (): void => {
  for (const child of children) child.kill('SIGKILL');
};
process.once('exit', killAll);
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.once(signal, () => {
    killAll();
    process.exit(128 + 15);
  });
}
export const BMC_PASSWORD = 'bmc-secret-Zq7';

export interface NodeProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly health: string | null;
  /** Held the capacity broker lease when it started. */
  readonly brokerAtStart: boolean;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
  /** When the process was killed with -9 (its ownership ends then: a dead process drives nothing). */
  killedAt: number | null;
}

export interface ClusterOptions {
  readonly shards?: number;
  readonly leaseTtlMs?: number;
  readonly heartbeatMs?: number;
  readonly limit?: number;
  readonly fixture?: FixtureOptions;
  readonly nodeArgs?: readonly string[];
  /** Run a MAAS simulator too; every node drives it (--maas). */
  readonly maas?: MaasSimOptions;
  /** More Secrets for the nodes' --secrets file (bootstrap data of MaasMachines). */
  readonly secrets?: readonly unknown[];
  /**
   * The nodes' --authorized-keys file: only commands signed by its keys are taken. Without it the
   * nodes run with --allow-unsigned-commands, so tests about other things can send plain requests.
   */
  readonly authorizedKeys?: string;
}

/**
 * Three nats-servers in one JetStream cluster instead of one, as deploy/nats runs them: every node
 * is given all three URLs and --replicas 3, and the test's own store client creates the host
 * buckets at R3 too (a bucket made with fewer replicas is raised to the most any node asks for).
 */
export interface OnNatsCluster {
  readonly nats: 'cluster';
}

/** The NATS a cluster runs on: one server, or three (`nats: 'cluster'`). */
export type ClusterNats = NatsServer | NatsCluster;

export interface Cluster<N extends ClusterNats = NatsServer> {
  readonly nats: N;
  /** The URLs nodes and clients are given. */
  readonly natsUrls: readonly string[];
  /** KV replicas of the cluster's buckets: 1, or 3 on a NATS cluster. */
  readonly replicas: number;
  readonly fixture: FixtureServer;
  readonly transport: Transport;
  readonly store: NatsStore;
  /** The MAAS side's store in NATS KV (what `metalfleet apply` writes MaasMachines to). */
  readonly objects: KvStore;
  readonly maas: MaasSim | null;
  readonly dir: string;
  readonly nodes: Map<string, NodeProcess>;
  readonly options: Required<Pick<ClusterOptions, 'shards' | 'leaseTtlMs' | 'heartbeatMs'>>;
  startNode(name: string, extraArgs?: readonly string[]): Promise<NodeProcess>;
  /** SIGTERM and wait for the exit. */
  stopNode(name: string): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** kill -9. */
  killNode(name: string): Promise<void>;
  applyHosts(count: number, opts?: { prefix?: string; inspection?: boolean }): Promise<string[]>;
  statesOf(keys: readonly string[]): Promise<Map<string, string>>;
  ownership(): Promise<OwnershipRecord[]>;
  dispose(): Promise<void>;
}

const NODE_START_LIMIT_MS = 90_000;

export function startCluster(options: ClusterOptions & OnNatsCluster): Promise<Cluster<NatsCluster>>;
export function startCluster(options?: ClusterOptions): Promise<Cluster>;
export async function startCluster(options: ClusterOptions & Partial<OnNatsCluster> = {}): Promise<Cluster<ClusterNats>> {
  const shards = options.shards ?? 64;
  const leaseTtlMs = options.leaseTtlMs ?? 3_000;
  const heartbeatMs = options.heartbeatMs ?? 250;
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-cluster-'));
  const nats: ClusterNats = options.nats === 'cluster' ? await startNatsCluster() : await startNatsServer();
  const natsUrls = 'urls' in nats ? nats.urls : [nats.url];
  const replicas = options.nats === 'cluster' ? 3 : 1;
  const kv = replicas > 1 ? { replicas } : {};
  const fixture = await startFixtureServer({ options: options.fixture ?? { latencyMs: 5, demoBehaviours: false } });
  const transport = await connectNats({ servers: natsUrls, name: 'test-client' });
  const store = await openNatsStoreOn(transport, { kv });
  const objects = await openKvStoreOn(transport, { hosts: false, kv, validators: MAAS_VALIDATORS });
  const maas = options.maas ? await startMaasSim(options.maas) : null;
  const secretFile = join(dir, 'secrets.yaml');
  await writeFile(secretFile, [
    'apiVersion: v1', 'kind: Secret', 'metadata: {name: bmc, namespace: fleet}',
    `stringData: {username: admin, password: ${BMC_PASSWORD}}`,
    ...(options.secrets ?? []).flatMap((s) => ['---', JSON.stringify(s)]), '',
  ].join('\n'));
  const nodes = new Map<string, NodeProcess>();

  const startNode = async (name: string, extraArgs: readonly string[] = []): Promise<NodeProcess> => {
    const args = [
      ...BIN_FLAGS,
      ...(process.env.CLUSTER_NODE_FLAGS ? process.env.CLUSTER_NODE_FLAGS.split(' ') : []),
      'bin/metalfleet.js', 'node', '--nats', natsUrls.join(','), '--name', name, '--fixture-url', fixture.url,
      '--secrets', secretFile, '--shards', String(shards), '--lease-ttl', String(leaseTtlMs),
      '--heartbeat', String(heartbeatMs), '--ownership-log', join(dir, `ownership-${name}.jsonl`),
      '--health-port', '0', '--log-level', process.env.CLUSTER_LOG_LEVEL ?? 'warn',
      ...(options.limit !== undefined ? ['--limit', String(options.limit)] : []),
      ...(replicas > 1 ? ['--replicas', String(replicas)] : []),
      ...(maas ? ['--maas', maas.url, '--maas-key', maas.adminKey] : []),
      ...(options.authorizedKeys ? ['--authorized-keys', options.authorizedKeys] : ['--allow-unsigned-commands']),
      ...(options.nodeArgs ?? []), ...extraArgs,
    ];
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    child.once('exit', () => children.delete(child));
    const err: string[] = [];
    const logFile = process.env.CLUSTER_LOG_DIR ? join(process.env.CLUSTER_LOG_DIR, `${name}.log`) : null;
    child.stderr?.on('data', (b: Buffer) => {
      if (logFile) appendFileSync(logFile, b);
      err.push(b.toString());
      if (err.length > 200) err.splice(0, err.length - 200);
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const first = await new Promise<string>((resolve, reject) => {
      const rl = createInterface({ input: child.stdout! });
      rl.once('line', resolve);
      void exited.then(({ code }) => reject(new Error(`node ${name} exited (${code}) before starting:\n${err.join('').slice(-3000)}`)));
      // A node that neither starts nor exits is named, with what it said, instead of holding the test.
      const limit = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`node ${name} did not start within ${NODE_START_LIMIT_MS} ms:\n${err.join('').slice(-3000)}`));
      }, NODE_START_LIMIT_MS);
      rl.once('line', () => clearTimeout(limit));
      void exited.then(() => clearTimeout(limit));
    });
    const info = JSON.parse(first) as { health: string | null; broker: boolean };
    const proc: NodeProcess = { name, child, health: info.health, brokerAtStart: info.broker, exited, stderr: () => err.join(''), killedAt: null };
    nodes.set(name, proc);
    return proc;
  };

  return {
    nats, natsUrls, replicas, fixture, transport, store, objects, maas, dir, nodes,
    options: { shards, leaseTtlMs, heartbeatMs },
    startNode,
    async stopNode(name) {
      const proc = nodes.get(name);
      if (!proc) throw new Error(`no node ${name}`);
      proc.child.kill('SIGTERM');
      return proc.exited;
    },
    async killNode(name) {
      const proc = nodes.get(name);
      if (!proc) throw new Error(`no node ${name}`);
      proc.child.kill('SIGKILL');
      await proc.exited;
      proc.killedAt = performance.timeOrigin + performance.now();
    },
    async applyHosts(count, opts = {}) {
      const objects: BareMetalHost[] = [];
      for (let i = 0; i < count; i++) objects.push(host(`${opts.prefix ?? 'host'}-${i}`, i, opts.inspection ?? false));
      const result = await store.apply(objects, 'cluster-test');
      if (!result.ok) throw new Error(`apply failed: ${JSON.stringify(result).slice(0, 500)}`);
      return objects.map((h) => `${h.metadata.namespace}/${h.metadata.name}`);
    },
    async statesOf(keys) {
      const out = new Map<string, string>();
      for (const key of keys) out.set(key, (await store.get(key))?.status?.provisioning.state ?? '');
      return out;
    },
    async ownership() {
      const records: OwnershipRecord[] = [];
      for (const name of nodes.keys()) {
        const text = await readFile(join(dir, `ownership-${name}.jsonl`), 'utf8').catch(() => '');
        records.push(...parseOwnershipLog(text));
        // A process killed with -9 stopped driving everything at that instant.
        const killedAt = nodes.get(name)?.killedAt;
        if (killedAt) {
          const open = new Map<number, boolean>();
          for (const r of parseOwnershipLog(text)) open.set(r.shard, r.kind === 'acquired');
          for (const [shard, isOpen] of open) if (isOpen) records.push({ kind: 'lost', node: name, shard, at: killedAt });
        }
      }
      return records;
    },
    async dispose() {
      for (const proc of nodes.values()) if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
      await Promise.all([...nodes.values()].map((p) => p.exited));
      await objects.close().catch(() => undefined);
      await store.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
      await maas?.stop();
      await fixture.close();
      await nats.dispose();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function host(name: string, i: number, inspection: boolean): BareMetalHost {
  const hex = (n: number): string => (n & 0xff).toString(16).padStart(2, '0');
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name, namespace: 'fleet' },
    spec: {
      online: true,
      bootMode: 'UEFI',
      automatedCleaningMode: 'metadata',
      bmc: { address: `ipmi://10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, credentialsName: 'bmc' },
      bootMACAddress: `52:54:00:${hex(i >> 16)}:${hex(i >> 8)}:${hex(i)}`,
      image: { url: 'http://images/os.qcow2', checksum: 'abc', checksumType: 'sha256' },
      ...(inspection ? {} : { inspectionMode: 'disabled' as const }),
    },
  };
}

/**
 * Runs body on a fresh cluster and always disposes it; on failure the nodes' last stderr goes to
 * the test log. Whole clusters of node processes take minutes on a loaded 2-core machine.
 *
 * The deadline is our own, not only ava's: t.timeout fails a test but leaves its body running,
 * and a body still awaiting holds node processes and NATS connections that keep the ava worker
 * alive after its last test (ava then waits on it with no timeout of its own). Disposing the
 * cluster at the deadline ends everything the body was waiting on.
 */
export function withCluster(t: ExecutionContext, options: ClusterOptions & OnNatsCluster, body: (c: Cluster<NatsCluster>) => Promise<void>, timeoutMs?: number): Promise<void>;
export function withCluster(t: ExecutionContext, options: ClusterOptions, body: (c: Cluster) => Promise<void>, timeoutMs?: number): Promise<void>;
export async function withCluster<N extends ClusterNats>(t: ExecutionContext, options: ClusterOptions & Partial<OnNatsCluster>, body: (c: Cluster<N>) => Promise<void>, timeoutMs = 180_000): Promise<void> {
  t.timeout(timeoutMs + 60_000);
  // The overloads tie `nats` to N; the implementation only passes the cluster through.
  const c = await (startCluster as (o: ClusterOptions & Partial<OnNatsCluster>) => Promise<Cluster<N>>)(options);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`cluster test still running after ${timeoutMs} ms; the cluster was torn down`)), timeoutMs);
  });
  const running = body(c);
  // Once the deadline has won, the body fails against a disposed cluster: nothing to report twice.
  running.catch(() => undefined);
  try {
    await Promise.race([running, deadline]);
  } catch (err) {
    for (const n of c.nodes.values()) t.log(`--- ${n.name} stderr:\n${n.stderr().slice(-2_000)}`);
    throw err;
  } finally {
    clearTimeout(timer);
    await c.dispose();
  }
}
