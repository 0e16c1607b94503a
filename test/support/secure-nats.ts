// A private nats-server running the shipped configuration (deploy/nats/config.yaml), rendered
// for this machine by scripts/nats-dev-certs.sh: TLS with a throwaway CA, the node, operator and
// viewer users with their permissions, on a free port. What the security tests attack is what
// gets deployed; only the lines the ConfigMap marks "local:" differ.
import type { TestFn } from 'ava';
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { connect } from '@nats-io/transport-node';
import type { ConnectionOptions, NatsConnection } from '@nats-io/nats-core';
import { freePort } from './ironic.ts';
import { waitUntil } from './wait.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const DEV_CERTS_SCRIPT = join(ROOT, 'scripts/nats-dev-certs.sh');

export type NatsRole = 'node' | 'operator' | 'viewer';
export const ROLES: readonly NatsRole[] = ['node', 'operator', 'viewer'];

export interface ClientCert {
  readonly certFile: string;
  readonly keyFile: string;
}

export interface SecureNats {
  /** nats://127.0.0.1:PORT (the server demands TLS on it). */
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  /** The rendered nats.conf. */
  readonly conf: string;
  readonly caFile: string;
  /** Each user's client certificate and key, from its own folder (`DIR/<role>/`). */
  readonly certs: Readonly<Record<NatsRole, ClientCert>>;
  readonly passwords: Readonly<Record<NatsRole, string>>;
  /**
   * A raw client as `role` over mutual TLS (null: no password, with the viewer's certificate so
   * that the server gets as far as asking for credentials).
   */
  connect(role: NatsRole | null, options?: Partial<ConnectionOptions>): Promise<NatsConnection>;
  /** The CA and `role`'s client certificate, as connectNats takes them. */
  tlsFor(role: NatsRole): { caFile: string; certFile: string; keyFile: string };
  /**
   * What `DIR/<role>/<role>.env` gives a metalfleet process run as `role` (NATS_USER, NATS_PASSWORD,
   * NATS_CERT, NATS_KEY; not NATS_CA, which tlsFlags passes), plus the rest of `base`.
   */
  envFor(role: NatsRole, base?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  /** The flags that make the metalfleet CLI trust this server's certificate. */
  readonly tlsFlags: readonly string[];
  /** Whether the server logged a refused publish or subscribe of `user` on `subject`. */
  violated(user: string, subject: string, kind?: 'Publish' | 'Subscription'): boolean;
  /** Waits until the server has logged that violation; throws with the log tail otherwise. */
  waitForViolation(user: string, subject: string, kind?: 'Publish' | 'Subscription', timeoutMs?: number): Promise<void>;
  log(): string;
  /** Waits until a server log line matches; throws with the log tail otherwise. */
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<void>;
  dispose(): Promise<void>;
}

const exec = promisify(execFile);
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** Parses KEY=VALUE lines (the script's *.env files). */
function envFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m?.[1] && m[2] !== undefined) out[m[1]] = m[2].replace(/^'(.*)'$/, '$1');
  }
  return out;
}

export async function startSecureNats(): Promise<SecureNats> {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-secure-nats-'));
  const port = await freePort();
  await exec('sh', [DEV_CERTS_SCRIPT, dir], { env: { ...process.env, NATS_PORT: String(port) } });
  const conf = join(dir, 'nats.conf');
  const serverEnv = envFile(await readFile(join(dir, 'server.env'), 'utf8'));
  const passwords = {} as Record<NatsRole, string>;
  const certs = {} as Record<NatsRole, ClientCert>;
  for (const role of ROLES) {
    const file = join(dir, role, `${role}.env`);
    const vars = envFile(await readFile(file, 'utf8'));
    if (vars.NATS_USER !== role || !vars.NATS_PASSWORD) throw new Error(`${file}: expected NATS_USER=${role} and a NATS_PASSWORD`);
    if (!vars.NATS_CERT || !vars.NATS_KEY) throw new Error(`${file}: expected NATS_CERT and NATS_KEY`);
    passwords[role] = vars.NATS_PASSWORD;
    certs[role] = { certFile: vars.NATS_CERT, keyFile: vars.NATS_KEY };
  }

  // Only the server gets the passwords; the test process's own environment stays as it was.
  const child = spawn('nats-server', ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', ...serverEnv } });
  live.add(child);
  child.once('exit', () => live.delete(child));
  const lines: string[] = [];
  const keep = (b: Buffer): void => {
    for (const line of b.toString().split('\n')) if (line) lines.push(line);
    if (lines.length > 5_000) lines.splice(0, lines.length - 5_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const log = (): string => lines.join('\n');
  await waitUntil(() => {
    if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode} on the shipped config:\n${log()}`);
    return lines.some((l) => l.includes('Server is ready'));
  }, 15_000, `nats-server ready on ${port}`);

  const caFile = join(dir, 'ca.pem');
  const url = `nats://127.0.0.1:${port}`;
  const violated = (user: string, subject: string, kind: 'Publish' | 'Subscription' = 'Publish'): boolean =>
    lines.some((l) => l.includes(`${kind} Violation - User "${user}", Subject "${subject}"`));

  return {
    url,
    port,
    dir,
    conf,
    caFile,
    certs,
    passwords,
    tlsFlags: ['--nats-ca', caFile],
    tlsFor: (role) => ({ caFile, ...certs[role] }),
    connect: (role, options = {}) => connect({
      servers: url,
      tls: { caFile, ...certs[role ?? 'viewer'] },
      ...(role ? { user: role, pass: passwords[role], inboxPrefix: `_INBOX_${role}` } : {}),
      maxReconnectAttempts: 0,
      timeout: 5_000,
      ...options,
    }),
    envFor: (role, base = process.env) => ({ ...base, NATS_USER: role, NATS_PASSWORD: passwords[role], NATS_CERT: certs[role].certFile, NATS_KEY: certs[role].keyFile }),
    violated,
    async waitForViolation(user, subject, kind = 'Publish', timeoutMs = 5_000) {
      try {
        await waitUntil(() => violated(user, subject, kind), timeoutMs, `server refuses ${user} ${kind} on ${subject}`);
      } catch (err) {
        throw new Error(`${(err as Error).message}\n--- nats-server log tail:\n${lines.slice(-30).join('\n')}`);
      }
    },
    log,
    async waitForLog(pattern, timeoutMs = 5_000) {
      try {
        await waitUntil(() => lines.some((l) => pattern.test(l)), timeoutMs, `nats-server logs ${String(pattern)}`);
      } catch (err) {
        throw new Error(`${(err as Error).message}\n--- nats-server log tail:\n${lines.slice(-30).join('\n')}`);
      }
    },
    async dispose() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGKILL');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One secure nats-server for a test file: started before its tests, disposed after them. The
 * returned function gives it to a test (and says so if the before hook could not start it).
 */
export function sharedSecureNats(test: TestFn): () => SecureNats {
  let nats: SecureNats | undefined;
  test.before(async () => {
    nats = await startSecureNats();
  });
  test.after.always(async () => {
    await nats?.dispose();
  });
  return () => {
    if (!nats) throw new Error('the secure nats-server did not start (see the before hook)');
    return nats;
  };
}
