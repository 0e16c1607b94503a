// Three private nats-servers (2.9 from Debian) routed into one JetStream cluster, as production
// runs them (deploy/nats/), for the tests that must see what R3 buckets do when a server dies,
// stalls or comes back empty. Each server has its own client, route and monitoring port and its
// own store; the process code is the single-server helper's (natsProcess).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { freePort } from './ironic.ts';
import type { NatsProcess } from './nats-server.ts';
import { natsProcess } from './nats-server.ts';
import { waitUntil } from './wait.ts';

/** The cluster's name (`cluster.name`), as its servers tell clients in INFO. */
export const NATS_TEST_CLUSTER = 'metalfleet-test';

export interface ClusterServer {
  /** server_name: s0, s1, ... (what JetStream names stream leaders and replicas by). */
  readonly name: string;
  /** nats://127.0.0.1:PORT, this server alone. */
  readonly url: string;
  readonly port: number;
  readonly clusterPort: number;
  /** The monitoring port (/jsz, /varz). */
  readonly httpPort: number;
  /** Its config file and store live here; the store is `${dir}/store`. */
  readonly dir: string;
  /** SIGTERM and wait; the store is kept. */
  stop(): Promise<void>;
  /** SIGKILL, as a crash would. */
  kill(): Promise<void>;
  /** Start again on the same ports with the same store (returns once it listens for clients). */
  start(): Promise<void>;
  restart(): Promise<void>;
  readonly running: boolean;
  logTail(lines?: number): string;
}

export interface StartNatsClusterOptions {
  /** How many servers; default 3 (what an R3 bucket needs). */
  readonly size?: number;
  /** Extra lines for every server's config. */
  readonly config?: string;
  /** How long to wait for the first JetStream meta leader; default 30 s (a loaded 2-core machine). */
  readonly readyTimeoutMs?: number;
}

/** What one server's /jsz says of a stream it keeps a copy of. */
export interface StreamCopy {
  readonly messages: number;
  readonly lastSeq: number;
  /** The stream leader as this server knows it; null when it knows none. */
  readonly leader: string | null;
}

export interface NatsCluster {
  /** Every server's client URL, for a client's `servers` list. */
  readonly urls: readonly string[];
  readonly servers: readonly ClusterServer[];
  readonly dir: string;
  /** SIGSTOP: the server keeps its sockets but answers nothing (a stall past the RAFT election timeout). */
  pause(i: number): void;
  /** SIGCONT. */
  resume(i: number): void;
  /** kill -9, delete the server's store, start it again: a machine replaced with an empty disk. */
  wipeAndRestart(i: number): Promise<void>;
  /** The meta leader as server i's monitoring reports it; null when none (or no answer in 2 s). */
  metaLeader(i: number): Promise<string | null>;
  /** Waits until every running, unpaused server names the same meta leader; returns its name. */
  waitForMetaLeader(timeoutMs?: number): Promise<string>;
  /** Server i's own copy of a stream (from its /jsz); null when it has none or does not answer. */
  streamCopy(i: number, stream: string): Promise<StreamCopy | null>;
  /** Kill every server and remove the stores. */
  dispose(): Promise<void>;
}

const Jsz = z.object({
  meta_cluster: z.object({ leader: z.string().optional() }).optional(),
  account_details: z.array(z.object({
    stream_detail: z.array(z.object({
      name: z.string(),
      state: z.object({ messages: z.number(), last_seq: z.number() }),
      cluster: z.object({ leader: z.string().optional() }).optional(),
    })).optional(),
  })).optional(),
});
type Jsz = z.infer<typeof Jsz>;

/** A server could not bind a port picked free a moment before: another process took it in between. */
class PortTaken extends Error {}

export async function startNatsCluster(options: StartNatsClusterOptions = {}): Promise<NatsCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startNatsClusterOnce(options);
    } catch (err) {
      // Fresh ports for another try; any other failure is the test's to see.
      if (!(err instanceof PortTaken) || attempt >= 3) throw err;
    }
  }
}

async function startNatsClusterOnce(options: StartNatsClusterOptions): Promise<NatsCluster> {
  const size = options.size ?? 3;
  if (!Number.isInteger(size) || size < 2) throw new RangeError(`startNatsCluster: size ${size}; expected an integer of at least 2`);
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-nats-cluster-'));
  const ports = await distinctFreePorts(size * 3);
  const layout = Array.from({ length: size }, (_, i) => ({
    name: `s${i}`, port: ports[i * 3]!, clusterPort: ports[i * 3 + 1]!, httpPort: ports[i * 3 + 2]!, dir: join(dir, `s${i}`),
  }));
  const routes = layout.map((s) => `nats-route://127.0.0.1:${s.clusterPort}`);
  const procs: NatsProcess[] = [];
  const paused = new Set<number>();
  for (const s of layout) {
    await mkdir(s.dir, { recursive: true });
    const conf = join(s.dir, 'nats.conf');
    await writeFile(conf, [
      // JetStream clustering identifies its peers by server_name: required, and stable across restarts.
      `server_name: ${s.name}`,
      `listen: 127.0.0.1:${s.port}`,
      `http: 127.0.0.1:${s.httpPort}`,
      `jetstream { store_dir: "${join(s.dir, 'store')}" }`,
      // Every route, its own included (the server drops a route to itself): the same text on each.
      `cluster { name: ${NATS_TEST_CLUSTER}, listen: 127.0.0.1:${s.clusterPort}, routes: [${routes.join(', ')}] }`,
      options.config ?? '',
    ].join('\n'));
    procs.push(natsProcess(conf, s.port));
  }

  const proc = (i: number): NatsProcess => {
    const p = procs[i];
    if (!p) throw new RangeError(`no server ${i} in a cluster of ${size}`);
    return p;
  };
  const servers: ClusterServer[] = layout.map((s, i) => ({
    ...s,
    url: `nats://127.0.0.1:${s.port}`,
    stop: () => proc(i).halt('SIGTERM').finally(() => paused.delete(i)),
    kill: () => proc(i).halt('SIGKILL').finally(() => paused.delete(i)),
    start: () => proc(i).start(),
    async restart() {
      await proc(i).halt('SIGTERM');
      paused.delete(i);
      await proc(i).start();
    },
    get running() {
      return proc(i).running;
    },
    logTail: (lines?: number) => proc(i).logTail(lines),
  }));

  const jsz = async (i: number, query = ''): Promise<Jsz | null> => {
    const s = layout[i];
    if (!s || !proc(i).running || paused.has(i)) return null;
    try {
      const res = await fetch(`http://127.0.0.1:${s.httpPort}/jsz${query}`, { signal: AbortSignal.timeout(2_000) });
      if (!res.ok) return null;
      const parsed = Jsz.safeParse(await res.json());
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  };
  const metaLeader = async (i: number): Promise<string | null> => (await jsz(i))?.meta_cluster?.leader ?? null;

  const cluster: NatsCluster = {
    urls: servers.map((s) => s.url),
    servers,
    dir,
    pause(i) {
      proc(i).suspend();
      paused.add(i);
    },
    resume(i) {
      proc(i).resume();
      paused.delete(i);
    },
    async wipeAndRestart(i) {
      await proc(i).halt('SIGKILL');
      paused.delete(i);
      await rm(join(layout[i]!.dir, 'store'), { recursive: true, force: true });
      await proc(i).start();
    },
    metaLeader,
    async waitForMetaLeader(timeoutMs = options.readyTimeoutMs ?? 30_000) {
      let leader = '';
      await waitUntil(async () => {
        const up = layout.map((_, i) => i).filter((i) => proc(i).running && !paused.has(i));
        const seen = await Promise.all(up.map((i) => metaLeader(i)));
        const first = seen[0];
        if (!first || seen.some((l) => l !== first)) return false;
        leader = first;
        return true;
      }, timeoutMs, `a JetStream meta leader all running servers agree on (${dir})`, 100);
      return leader;
    },
    async streamCopy(i, stream) {
      const answer = await jsz(i, '?accounts=true&streams=true');
      for (const account of answer?.account_details ?? []) {
        const found = account.stream_detail?.find((d) => d.name === stream);
        if (found) return { messages: found.state.messages, lastSeq: found.state.last_seq, leader: found.cluster?.leader ?? null };
      }
      return null;
    },
    async dispose() {
      await Promise.all(procs.map((p) => p.halt('SIGKILL')));
      await rm(dir, { recursive: true, force: true });
    },
  };

  try {
    await Promise.all(procs.map((p) => p.start()));
    await cluster.waitForMetaLeader();
  } catch (err) {
    const tails = servers.map((s) => `--- ${s.name}:\n${s.logTail(15)}`).join('\n');
    await cluster.dispose();
    const Failure = /address already in use/.test(tails) ? PortTaken : Error;
    throw new Failure(`startNatsCluster: ${err instanceof Error ? err.message : String(err)}\n${tails}`, { cause: err });
  }
  return cluster;
}

/** n free loopback ports, no two alike (the kernel may hand the same one out twice in a row). */
async function distinctFreePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}
