// A private nats-server (2.9 from Debian, JetStream on) for one test file or bench: its own port,
// its own store folder, and the controls the cluster tests need (stop, kill -9, restart on the
// same port and store). Never the machine's shared server on 4222.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ironic.ts';
import { toolAvailable } from './tools.ts';
import { waitUntil } from './wait.ts';

export interface NatsServer {
  /** nats://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  /** SIGTERM and wait; the store folder is kept until dispose(). */
  stop(): Promise<void>;
  /** SIGKILL, as a crash would. */
  kill(): Promise<void>;
  /** Start again on the same port with the same store. */
  start(): Promise<void>;
  restart(): Promise<void>;
  /** SIGSTOP, resolved once the kernel has stopped it: its sockets stay open and nothing is answered (a stall, not a crash). */
  pause(): Promise<void>;
  /** SIGCONT after pause(). */
  resume(): void;
  /** Stop and remove the store folder. */
  dispose(): Promise<void>;
  logTail(lines?: number): string;
}

export interface StartNatsOptions {
  /** Extra lines of server config (auth, tls blocks ...), written to a config file. */
  config?: string;
  port?: number;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});
// A test process ended by a signal (a timeout) runs no exit handlers unless it exits itself.
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.once(signal, () => process.exit(128 + 15));
}

/**
 * Whether the tests that need nats-server run. Under CI (`CI=true`, as `.ci/run` sets) they always
 * do, so a missing server is their failure, never a quiet skip; elsewhere they skip without it.
 */
export function natsServerInstalled(): boolean {
  return toolAvailable('nats-server');
}

export async function startNatsServer(options: StartNatsOptions = {}): Promise<NatsServer> {
  const port = options.port ?? await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-nats-'));
  const conf = join(dir, 'nats.conf');
  await writeFile(conf, [
    `listen: 127.0.0.1:${port}`,
    `jetstream { store_dir: "${join(dir, 'js')}" }`,
    // Room for the oversized-message tests without raising the default 1 MB on purpose.
    options.config ?? '',
  ].join('\n'));
  const proc = natsProcess(conf, port);
  await proc.start();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    dir,
    stop: () => proc.halt('SIGTERM'),
    kill: () => proc.halt('SIGKILL'),
    start: () => proc.start(),
    async restart() {
      await proc.halt('SIGTERM');
      await proc.start();
    },
    async pause() {
      proc.suspend();
      // The signal is delivered when the process next runs: until then it may still answer.
      await waitUntil(() => proc.suspended(), 5_000, `nats-server on ${port} stopped by SIGSTOP`, 5);
    },
    resume: () => proc.resume(),
    async dispose() {
      await proc.halt('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
    logTail: (lines = 40) => proc.logTail(lines),
  };
}

/** One nats-server process run from a config file, started and stopped as often as a test likes. */
export interface NatsProcess {
  /** Spawn it and wait until it listens for clients on `port`. */
  start(): Promise<void>;
  /** Send `signal` and wait for the exit; nothing when it is not running. */
  halt(signal: NodeJS.Signals): Promise<void>;
  /** SIGSTOP or SIGCONT: the process stays, its sockets stay open and unanswered (a stall, not a crash). */
  suspend(): void;
  resume(): void;
  /** Stopped by the kernel (state T in /proc): suspend() has taken effect. */
  suspended(): boolean;
  readonly running: boolean;
  logTail(lines?: number): string;
}

/** The process code every helper shares (a single server, the three of a cluster). */
export function natsProcess(conf: string, port: number): NatsProcess {
  let child: ChildProcess | null = null;
  const log: string[] = [];
  // A process that never started (no pid: ENOENT) will not emit 'exit' either: nothing to halt.
  const alive = (proc: ChildProcess | null): proc is ChildProcess => proc !== null && proc.pid !== undefined && proc.exitCode === null && proc.signalCode === null;

  return {
    async start() {
      if (alive(child)) throw new Error(`nats-server on ${port} is already running`);
      const proc = spawn('nats-server', ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
      child = proc;
      live.add(proc);
      const keep = (b: Buffer): void => {
        for (const line of b.toString().split('\n')) if (line) log.push(line);
        if (log.length > 400) log.splice(0, log.length - 400);
      };
      proc.stdout?.on('data', keep);
      proc.stderr?.on('data', keep);
      proc.once('exit', () => live.delete(proc));
      // Not installed (ENOENT): a failed start that names the cause, not an uncaught exception.
      let spawnError: Error | null = null;
      proc.once('error', (err) => {
        spawnError = err;
        live.delete(proc);
      });
      await waitForPort(port, proc, () => log.slice(-20).join('\n'), () => spawnError);
    },
    async halt(signal) {
      const proc = child;
      child = null;
      if (!alive(proc)) return;
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      // A stopped process takes no SIGTERM until it runs again.
      proc.kill('SIGCONT');
      proc.kill(signal);
      await exited;
    },
    suspend() {
      if (alive(child)) child.kill('SIGSTOP');
    },
    resume() {
      if (alive(child)) child.kill('SIGCONT');
    },
    suspended() {
      if (!alive(child)) return false;
      const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
      // Field 3, after the command name in parentheses (which may itself hold spaces).
      return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T');
    },
    get running() {
      return alive(child);
    },
    logTail: (lines = 40) => log.slice(-lines).join('\n'),
  };
}

async function waitForPort(port: number, proc: ChildProcess, tail: () => string, spawnError: () => Error | null): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const failed = spawnError();
    if (failed) throw new Error(`nats-server could not be started (${failed.message}); install it (apt-get install nats-server) or put it on PATH`, { cause: failed });
    if (proc.exitCode !== null) throw new Error(`nats-server exited with ${proc.exitCode} before listening on ${port}:\n${tail()}`);
    if (await canConnect(port)) return;
    if (Date.now() > deadline) throw new Error(`nats-server did not listen on ${port} within 15 s:\n${tail()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
