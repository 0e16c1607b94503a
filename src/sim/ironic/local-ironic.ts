// A private, real Ironic (21.4 from Debian, API 1.82) for a test file, a bench, the demo or a dev
// shell: noauth, SQLite and the conductor in the same process (`ironic`), following
// reference/ironic-standalone.md. Each call gets its own folder and loopback port, so several can
// run at once.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ironicConfig } from './config.ts';
import { guardAgainstOrphans } from './orphan-guard.ts';
import type { OrphanGuard } from './orphan-guard.ts';
import type { IronicServer, StartIronicOptions } from './options.ts';
import { freePort, listenersOn, portAnswers } from './ports.ts';
import { withSushyOverlay } from './sushy-overlay.ts';
import { schemaInto } from './schema-template.ts';
import { installedIronicRelease } from './version.ts';

class PortTaken extends Error {
  constructor(port: number) {
    super(`startIronic: port ${port} on 127.0.0.1 is already in use`);
    this.name = 'PortTaken';
  }
}

const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;
const LOG_LINES = 200;

// Ironic processes still running when this process exits are killed with it, so that a crashed
// test run does not leave conductors behind. Exit handlers do not run when this process is killed
// (kill -9, OOM): each Ironic also has an orphan guard (orphan-guard.ts) that ends it then.
const live = new Set<number>();
process.once('exit', () => {
  for (const pid of live) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

export function ironicInstalled(): boolean {
  return ['ironic', 'ironic-dbsync'].every((bin) => spawnSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }).status === 0);
}

function run(cmd: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

// python-requests lets REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE override verify=False (requests#3829),
// so with either set, a node's redfish_verify_ca=false (Metal3's disableCertificateVerification)
// would be ignored and every self-signed BMC refused.
function withoutCaBundles(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { REQUESTS_CA_BUNDLE: _r, CURL_CA_BUNDLE: _c, ...rest } = env;
  return rest;
}

function getRoot(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', agent: false, timeout: 2_000 }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(0));
  });
}

export async function startIronic(opts: StartIronicOptions = {}): Promise<IronicServer> {
  if (!ironicInstalled()) {
    throw new Error('startIronic: ironic and ironic-dbsync are not on PATH; run `bash scripts/ironic-install.sh` as root (it installs the Debian packages ironic-api and ironic-conductor)');
  }
  // Read before the folder exists: the configuration written below follows it.
  const release = await installedIronicRelease();
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-ironic-'));
  await Promise.all(['locks', 'tmp', 'httpboot', 'tftpboot', 'images', 'master_images', 'deploy-logs'].map((d) => mkdir(join(dir, d), { recursive: true })));
  const confPath = join(dir, 'ironic.conf');
  const dbPath = join(dir, 'ironic.db');
  const log: string[] = [];
  const logFile = createWriteStream(join(dir, 'ironic.log'), { flags: 'a' });
  const logTail = (lines = 30): string => log.slice(-lines).join('\n');
  const note = (line: string): void => {
    log.push(line);
    if (log.length > LOG_LINES) log.splice(0, log.length - LOG_LINES);
  };

  let port = opts.port ?? (await freePort());
  let child: ChildProcess | null = null;
  let guard: OrphanGuard | null = null;
  let exited: Promise<void> = Promise.resolve();
  let stopped = false;

  async function createSchema(): Promise<void> {
    const r = await run('ironic-dbsync', ['--config-file', confPath, 'create_schema']);
    if (r.code !== 0) throw new Error(`startIronic: ironic-dbsync create_schema failed (exit ${r.code}):\n${r.output.split('\n').slice(-15).join('\n')}`);
  }

  async function launch(): Promise<void> {
    if (await portAnswers(port)) throw new PortTaken(port);
    // The child's environment, not configuration read here: the parent's, less two variables.
    // eslint-disable-next-line no-restricted-syntax
    const base = withoutCaBundles(process.env);
    const env = opts.sushyRegistries === true ? await withSushyOverlay(base) : base;
    const proc = spawn('ironic', ['--config-file', confPath], { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
    child = proc;
    let dead: string | null = null;
    exited = new Promise<void>((resolve) => {
      proc.once('exit', (code, signal) => {
        dead = signal ?? `exit ${code}`;
        if (proc.pid !== undefined) live.delete(proc.pid);
        resolve();
      });
    });
    proc.once('error', (err) => {
      dead = err.message;
    });
    if (proc.pid !== undefined) {
      live.add(proc.pid);
      // Ironic is detached (its own group): should this process die without stopping it, the
      // guard ends the group and removes the folder (a crashed demo left both behind).
      guard = guardAgainstOrphans({ processGroup: proc.pid, dirs: [dir] });
    }
    for (const stream of [proc.stdout, proc.stderr]) {
      let partial = '';
      stream?.on('data', (d: Buffer) => {
        logFile.write(d);
        const lines = (partial + d.toString()).split('\n');
        partial = lines.pop() ?? '';
        for (const l of lines) note(l);
      });
    }
    const deadline = Date.now() + (opts.startTimeoutMs ?? START_TIMEOUT_MS);
    for (;;) {
      if (dead !== null) throw new Error(`startIronic: ironic exited (${dead}) before answering on port ${port}; last lines:\n${logTail()}`);
      if ((await getRoot(port)) === 200) {
        const listeners = listenersOn(port);
        if (listeners !== null && listeners > 1) {
          await kill();
          throw new PortTaken(port);
        }
        return;
      }
      if (Date.now() > deadline) {
        await kill();
        throw new Error(`startIronic: ironic did not answer GET http://127.0.0.1:${port}/ within ${opts.startTimeoutMs ?? START_TIMEOUT_MS} ms; last lines:\n${logTail()}`);
      }
      await sleep(100);
    }
  }

  // SIGTERM to the whole process group, SIGKILL after the grace period; resolves once it exited.
  async function kill(): Promise<void> {
    const proc = child;
    if (proc === null || proc.pid === undefined) return;
    const pid = proc.pid;
    const signal = (s: NodeJS.Signals): void => {
      try {
        process.kill(-pid, s);
      } catch {
        // the group is gone
      }
    };
    if (proc.exitCode === null && proc.signalCode === null) {
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    }
    // Anything Ironic started (qemu-img, genisoimage) goes with it.
    signal('SIGKILL');
    child = null;
    // Stopped here: the guard has nothing left to do (a restart starts another).
    guard?.release();
    guard = null;
  }

  async function launchWithPortRetry(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await launch();
        return;
      } catch (err) {
        // Another process may take the free port between our probe and Ironic's bind.
        const taken = err instanceof PortTaken || /Address already in use|EADDRINUSE|Errno 98/.test(logTail(50));
        if (!taken || opts.port !== undefined || attempt >= 5) throw err;
        await kill();
        port = await freePort();
        await writeFile(confPath, ironicConfig(dir, port, opts, release));
      }
    }
  }

  try {
    await writeFile(confPath, ironicConfig(dir, port, opts, release));
    await schemaInto(dbPath, release, createSchema);
    await launchWithPortRetry();
  } catch (err) {
    await kill();
    logFile.end();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }

  const server: IronicServer = {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    dir,
    release,
    logTail,
    async stop() {
      if (stopped) return;
      stopped = true;
      await kill();
      await new Promise<void>((resolve) => logFile.end(resolve));
      await rm(dir, { recursive: true, force: true });
    },
    async restart() {
      if (stopped) throw new Error('restart: this Ironic was stopped');
      await kill();
      await launch();
    },
    async restartEmpty() {
      if (stopped) throw new Error('restartEmpty: this Ironic was stopped');
      await kill();
      await Promise.all(['', '-journal', '-wal', '-shm'].map((s) => rm(dbPath + s, { force: true })));
      await schemaInto(dbPath, release, createSchema);
      await launch();
    },
  };
  return server;
}
