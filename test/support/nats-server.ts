// A private nats-server (2.9 from Debian, JetStream on) for one test file or bench: its own port,
// its own store folder, and the controls the cluster tests need (stop, kill -9, restart on the
// same port and store). Never the machine's shared server on 4222.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ironic.ts';
import { toolAvailable } from './tools.ts';

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
  let child: ChildProcess | null = null;
  const log: string[] = [];

  const start = async (): Promise<void> => {
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
    await waitForPort(port, proc, () => log.slice(-20).join('\n'));
  };

  const halt = async (signal: NodeJS.Signals): Promise<void> => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill(signal);
    await exited;
  };

  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    dir,
    stop: () => halt('SIGTERM'),
    kill: () => halt('SIGKILL'),
    start,
    async restart() {
      await halt('SIGTERM');
      await start();
    },
    async dispose() {
      await halt('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
    logTail: (lines = 40) => log.slice(-lines).join('\n'),
  };
}

async function waitForPort(port: number, proc: ChildProcess, tail: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
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
