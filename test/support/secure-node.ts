// A real `metalfleet node` process connected to a SecureNats as the `node` user over TLS, as the
// controller StatefulSet runs it (NATS_USER/NATS_PASSWORD from the environment, --nats-ca), and
// the `metalfleet` CLI run as any of the three users.
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { nkeys } from '@nats-io/nats-core';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { NatsRole, SecureNats } from './secure-nats.ts';
import { ROOT } from './secure-nats.ts';

export const BMC_PASSWORD = 'bmc-secret-Vt42';

/**
 * The command signing keys of the operator and the viewer (nkey user seeds in files), and the
 * authorized-keys file the node checks signatures against, as deploy/controller mounts it.
 */
export interface SigningKeys {
  readonly authorizedKeysFile: string;
  readonly seedFiles: Readonly<Record<'operator' | 'viewer', string>>;
}

export async function makeSigningKeys(dir: string): Promise<SigningKeys> {
  const lines = ['# written by test/support/secure-node.ts'];
  const seedFiles = {} as Record<'operator' | 'viewer', string>;
  for (const role of ['operator', 'viewer'] as const) {
    const pair = nkeys.createUser();
    const file = join(dir, `${role}.seed`);
    await writeFile(file, `${new TextDecoder().decode(pair.getSeed())}\n`, { mode: 0o600 });
    seedFiles[role] = file;
    lines.push(`${role} ${pair.getPublicKey()} ${role === 'operator' ? 'alice' : 'bob'}`);
  }
  const authorizedKeysFile = join(dir, 'authorized-keys');
  await writeFile(authorizedKeysFile, `${lines.join('\n')}\n`);
  return { authorizedKeysFile, seedFiles };
}

export interface SecureNodeProcess {
  readonly name: string;
  readonly child: ChildProcess;
  stderr(): string;
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

export interface SecureNodeOptions {
  readonly name: string;
  readonly fixtureUrl: string;
  readonly shards: number;
  readonly limit: number;
  readonly keys: SigningKeys;
}

export async function startSecureNode(nats: SecureNats, options: SecureNodeOptions): Promise<SecureNodeProcess> {
  const secrets = join(nats.dir, `secrets-${options.name}.yaml`);
  await writeFile(secrets, [
    'apiVersion: v1', 'kind: Secret', 'metadata: {name: bmc, namespace: fleet}',
    `stringData: {username: admin, password: ${BMC_PASSWORD}}`, '',
  ].join('\n'));
  const args = [
    'bin/metalfleet.js', 'node', '--nats', nats.url, ...nats.tlsFlags, '--name', options.name,
    '--fixture-url', options.fixtureUrl, '--secrets', secrets, '--shards', String(options.shards),
    '--limit', String(options.limit), '--authorized-keys', options.keys.authorizedKeysFile, '--lease-ttl', '3000', '--heartbeat', '250', '--health-port', '0', '--log-level', 'warn',
  ];
  const child = spawn(process.execPath, args, { cwd: ROOT, env: nats.envFor('node'), stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const err: string[] = [];
  child.stderr?.on('data', (b: Buffer) => {
    err.push(b.toString());
    if (err.length > 200) err.splice(0, err.length - 200);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => {
    children.delete(child);
    resolve();
  }));
  // The node prints one JSON line once it has joined the cluster.
  await new Promise<void>((resolve, reject) => {
    const limit = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`node ${options.name} did not start within 90 s:\n${err.join('').slice(-3_000)}`));
    }, 90_000);
    createInterface({ input: child.stdout! }).once('line', () => {
      clearTimeout(limit);
      resolve();
    });
    void exited.then(() => {
      clearTimeout(limit);
      reject(new Error(`node ${options.name} exited before starting:\n${err.join('').slice(-3_000)}`));
    });
  });
  return {
    name: options.name,
    child,
    stderr: () => err.join(''),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  /** Pass --nats-ca (default true); false runs the CLI as a client that does not know the CA. */
  readonly trustServer?: boolean;
  /** Sign requests with this role's key (METALFLEET_SIGNING_KEY_FILE). */
  readonly keys?: SigningKeys;
  /** Variables to leave out of the role's environment (say NATS_KEY, to run with a certificate and no key). */
  readonly without?: readonly string[];
}

/** `metalfleet ARGS --nats URL --nats-ca CA` as `role` (NATS_USER/NATS_PASSWORD in its environment). */
export function cliAs(nats: SecureNats, role: NatsRole | null, args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  // Without a role: no password, but the viewer's certificate, so the server asks for credentials.
  const env = role ? nats.envFor(role) : { ...process.env, NATS_CERT: nats.certs.viewer.certFile, NATS_KEY: nats.certs.viewer.keyFile };
  if (!role) {
    delete env.NATS_USER;
    delete env.NATS_PASSWORD;
  }
  delete env.METALFLEET_SIGNING_KEY_FILE;
  for (const name of options.without ?? []) delete env[name];
  if (options.keys && (role === 'operator' || role === 'viewer')) env.METALFLEET_SIGNING_KEY_FILE = options.keys.seedFiles[role];
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/metalfleet.js', ...args, '--nats', nats.url, ...(options.trustServer === false ? [] : nats.tlsFlags)], { cwd: ROOT, env, timeout: 90_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}
