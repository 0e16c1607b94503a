// A private, real Ironic (21.4 from Debian, API 1.82) for one test file, bench or dev shell:
// fake-hardware, noauth, SQLite and the conductor in the same process (`ironic`), following
// /work/shared/reference/ironic-standalone.md. Each call gets its own folder and loopback port,
// so several can run at once.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestFn } from 'ava';
import { createIronicClient } from '../../src/adapters/ironic/client/index.ts';
import type { IronicClient } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { Provisioner } from '../../src/ports/index.ts';

export interface IronicServer {
  /** http://127.0.0.1:PORT (no /v1). */
  readonly url: string;
  readonly port: number;
  /** The private folder: ironic.conf, ironic.db, ironic.log. Removed by stop(). */
  readonly dir: string;
  stop(): Promise<void>;
  /** "Ironic lost its database": stop, delete the DB, create the schema, start on the same port. */
  restartEmpty(): Promise<void>;
  /** Stop and start again on the same port with the same DB. */
  restart(): Promise<void>;
  /** The last lines Ironic wrote (stderr and stdout), for failure messages. */
  logTail(lines?: number): string;
}

/** Interfaces of fake-hardware that can be slowed down (seconds; a pair is a random range). */
export type FakeDelayKind = 'power' | 'boot' | 'deploy' | 'vendor' | 'management' | 'inspect' | 'raid' | 'bios' | 'storage' | 'rescue';

export interface StartIronicOptions {
  /** A fixed port; by default a free one is picked. */
  port?: number;
  /**
   * Make fake-hardware steps take time (whole seconds; Ironic's [fake] options), e.g. to hold a
   * node lock long enough to meet a 409, or to see several deployments overlap.
   */
  fakeDelays?: Partial<Record<FakeDelayKind, number | readonly [number, number]>>;
  /** How long to wait for the API to answer; default 60 s. */
  startTimeoutMs?: number;
}

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
// test run does not leave conductors behind.
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

/** A port nobody listens on right now: bind port 0 on loopback and give it back. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Whether anything accepts connections on 127.0.0.1:port. */
function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

// eventlet listens with SO_REUSEPORT, so a second Ironic on a taken port does not fail: both
// listen and the kernel splits the connections between them. Count the listeners instead.
function listenersOn(port: number): number | null {
  let table: string;
  try {
    table = readFileSync('/proc/net/tcp', 'utf8');
  } catch {
    return null;
  }
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return table.split('\n').slice(1).filter((line) => {
    const cols = line.trim().split(/\s+/);
    return cols[1]?.endsWith(hex) === true && cols[3] === '0A';
  }).length;
}

function config(dir: string, port: number, o: StartIronicOptions): string {
  const delays = Object.entries(o.fakeDelays ?? {}).map(([k, v]) => `${k}_delay = ${Array.isArray(v) ? v.join(',') : String(v)}`);
  return `[DEFAULT]
auth_strategy = noauth
host = localhost
rpc_transport = none
state_path = ${dir}
tempdir = ${dir}/tmp
enabled_hardware_types = fake-hardware
enabled_boot_interfaces = fake
# fake is the default. direct, ramdisk and custom-agent are enabled so that nodes can be
# registered the way BMO registers them, and so that a manual clean with an agent step
# (deploy.erase_devices_metadata on a direct node) waits in "clean wait", where abort works.
# Deploying with them needs a real agent (ramdisk even fails validation: the fake boot
# interface lacks ramdisk_boot), so nodes that are to reach active keep fake.
enabled_deploy_interfaces = fake,direct,ramdisk,custom-agent
default_deploy_interface = fake
enabled_inspect_interfaces = fake,no-inspect
enabled_management_interfaces = fake
enabled_power_interfaces = fake
enabled_vendor_interfaces = fake,no-vendor
enabled_bios_interfaces = fake,no-bios
enabled_console_interfaces = fake,no-console
enabled_raid_interfaces = fake,no-raid
enabled_rescue_interfaces = fake,no-rescue
enabled_network_interfaces = noop
default_network_interface = noop
use_stderr = true
graceful_shutdown_timeout = 5
[api]
host_ip = 127.0.0.1
port = ${port}
[database]
connection = sqlite:///${dir}/ironic.db
[dhcp]
dhcp_provider = none
[conductor]
automated_clean = false
[deploy]
http_root = ${dir}/httpboot
[pxe]
tftp_root = ${dir}/tftpboot
tftp_master_path = ${dir}/tftpboot/master_images
images_path = ${dir}/images
instance_master_path = ${dir}/master_images
[service_catalog]
# Agent-based interfaces (direct, custom-agent) need Ironic's own URL; without a catalog
# ("Couldn't get the URL of the Ironic API service") cleaning and deploying fail at once.
endpoint_override = http://127.0.0.1:${port}
[oslo_concurrency]
lock_path = ${dir}/locks
[fake]
${delays.join('\n')}
`;
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
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-ironic-'));
  await Promise.all(['locks', 'tmp', 'httpboot', 'tftpboot', 'images', 'master_images'].map((d) => mkdir(join(dir, d), { recursive: true })));
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
  let exited: Promise<void> = Promise.resolve();
  let stopped = false;

  async function createSchema(): Promise<void> {
    const r = await run('ironic-dbsync', ['--config-file', confPath, 'create_schema']);
    if (r.code !== 0) throw new Error(`startIronic: ironic-dbsync create_schema failed (exit ${r.code}):\n${r.output.split('\n').slice(-15).join('\n')}`);
  }

  async function launch(): Promise<void> {
    if (await portAnswers(port)) throw new PortTaken(port);
    const proc = spawn('ironic', ['--config-file', confPath], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
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
    if (proc.pid !== undefined) live.add(proc.pid);
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
        await writeFile(confPath, config(dir, port, opts));
      }
    }
  }

  try {
    await writeFile(confPath, config(dir, port, opts));
    await createSchema();
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
      await createSchema();
      await launch();
    },
  };
  return server;
}

/** A real Ironic for one test file, with a client and a fake-hardware provisioner on it (fast polls, no image check). */
export interface IronicProvisionerFixture {
  readonly ironic: IronicServer;
  readonly client: IronicClient;
  readonly provisioner: Provisioner;
}

/** Starts one in the file's before hook and stops it after; read the fields inside tests. */
export function useIronicProvisioner(test: TestFn): IronicProvisionerFixture {
  const it = {} as { ironic: IronicServer; client: IronicClient; provisioner: Provisioner };
  test.before(async () => {
    it.ironic = await startIronic();
    it.client = createIronicClient({ endpoint: it.ironic.url, timeoutMs: 10_000 });
    await it.client.connect();
    it.provisioner = createIronicProvisioner({ client: it.client, driverOverride: { hardwareType: 'fake-hardware' }, polls: { shortMs: 50, longMs: 100 }, imageCheck: { enabled: false } });
  });
  test.after.always(async () => {
    it.client?.close();
    await it.ironic?.stop();
  });
  return it;
}
