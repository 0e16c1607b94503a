import type { Command } from 'commander';
import { BusError, type Transport } from '../ports/index.ts';
import type { SigningKey } from '../security/index.ts';
import { CliError } from './cli-error.ts';
import { exposedKeyProblem } from '../security/key-file.ts';
import { errorMessage } from '../api/index.ts';
import { protectAuth } from '../bus/protect-auth.ts';
import { checkNatsTlsContent, checkNatsTlsFiles, checkNatsUrls, natsFileProblem, natsTlsFrom } from './nats-tls-flags.ts';

// The NATS flags every cluster command shares (node, apply, delete, command, top). Secrets are
// taken from the environment or files, never from argv alone, so they stay out of `ps`.

export interface NatsCliOptions {
  readonly servers: string[];
  readonly name: string;
  readonly auth?: { user: string; pass: string } | { token: string } | { nkeySeed: string; from: string } | { credsFile: string };
  readonly tls?: { caFile?: string; certFile?: string; keyFile?: string };
}

export function addNatsFlags(cmd: Command): Command {
  return cmd
    .option('--nats <urls>', 'NATS server URLs, comma separated (env NATS_URL)')
    .option('--nats-user <user>', 'NATS user; the password comes from env NATS_PASSWORD')
    .option('--nats-token-file <file>', 'file holding a NATS token (or env NATS_TOKEN)')
    .option('--nats-nkey-file <file>', 'file holding an nkey seed (or env NATS_NKEY_SEED)')
    .option('--nats-creds <file>', 'NATS credentials file (JWT + seed; or env NATS_CREDS)')
    .option('--nats-ca <file>', 'CA certificate to verify the NATS server (TLS; env NATS_CA)')
    .option('--nats-cert <file>', 'client certificate for NATS mutual TLS, with --nats-key (env NATS_CERT)')
    .option('--nats-key <file>', 'client key for NATS mutual TLS, with --nats-cert (env NATS_KEY)');
}

export interface NatsFlagValues {
  nats?: string;
  natsUser?: string;
  natsTokenFile?: string;
  natsNkeyFile?: string;
  natsCreds?: string;
  natsCa?: string;
  natsCert?: string;
  natsKey?: string;
}

/** A warning on stderr, as the CLI says them. */
export function warnOnStderr(line: string): void {
  process.stderr.write(`metalfleet: warning: ${line}\n`);
}

/**
 * The NATS connection the flags, else the environment, ask for. A credential file (token, nkey
 * seed, creds, TLS key) that other users may read is used, with a warning through `warn`.
 */
export async function natsOptionsFrom(flags: NatsFlagValues, env: NodeJS.ProcessEnv, name: string, warn: (line: string) => void = warnOnStderr): Promise<NatsCliOptions> {
  const urls = flags.nats ?? env.NATS_URL;
  if (!urls) throw new CliError('no NATS server given: pass --nats nats://HOST:PORT or set NATS_URL');
  const servers = urls.split(',').map((s) => s.trim()).filter(Boolean);
  const source = flags.nats ? '--nats' : 'NATS_URL';
  // An empty list is not "no preference": the NATS client would dial its default, 127.0.0.1:4222.
  if (servers.length === 0) throw new CliError(`${source} names no NATS server: use nats://HOST:PORT or tls://HOST:PORT (comma-separated for several)`, 2);
  checkNatsUrls(servers, source);
  const tls = natsTlsFrom(flags, env);
  const { readFile } = await import('node:fs/promises');
  // A file that is not there, or a folder, is a usage error naming its flag (exit 2).
  const read = async (file: string, source: string): Promise<string> => {
    const problem = await natsFileProblem(file);
    if (problem) throw new CliError(`${source} ${file}: ${problem}`, 2);
    try {
      return (await readFile(file, 'utf8')).trim();
    } catch (err) {
      throw new CliError(`${source} ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`, 2);
    }
  };
  const login = chooseLogin(flags, env, servers, source);
  let auth: NatsCliOptions['auth'];
  if (login?.method === 'user') {
    const user = (login.from === 'flag' ? flags.natsUser : env.NATS_USER) as string;
    const pass = env.NATS_PASSWORD;
    if (!pass) throw new CliError(`NATS user ${user} given without a password: set NATS_PASSWORD`, 2);
    auth = { user, pass };
  } else if (login?.method === 'token') {
    if (login.from === 'flag') {
      const file = flags.natsTokenFile as string;
      const token = await read(file, '--nats-token-file');
      // An empty token is no login: the server said "Authorization Violation" for a file left blank.
      if (token === '') throw new CliError(`--nats-token-file ${file}: is empty: it must hold the NATS token`, 2);
      auth = { token };
    } else {
      auth = { token: env.NATS_TOKEN as string };
    }
  } else if (login?.method === 'nkey') {
    if (login.from === 'flag') {
      const file = flags.natsNkeyFile as string;
      const seed = await read(file, '--nats-nkey-file');
      if (CREDS_FILE.test(seed)) throw new CliError(`--nats-nkey-file ${file}: is a NATS creds file (a user JWT and its seed), not a bare nkey seed: give it with --nats-creds`, 2);
      auth = { nkeySeed: seed, from: `--nats-nkey-file ${file}` };
    } else {
      auth = { nkeySeed: env.NATS_NKEY_SEED as string, from: 'NATS_NKEY_SEED' };
    }
  } else if (login?.method === 'creds') {
    const credsFile = (login.from === 'flag' ? flags.natsCreds : env.NATS_CREDS) as string;
    // The client reads it on connecting, after dialling: checked here so that its flag is named.
    const problem = await natsFileProblem(credsFile);
    if (problem) throw new CliError(`${login.from === 'flag' ? '--nats-creds' : 'NATS_CREDS'} ${credsFile}: ${problem}`, 2);
    auth = { credsFile };
  }
  await checkNatsTlsContent(flags, env);
  const secretFiles: Array<[string, string | undefined]> = [
    ['--nats-token-file', login?.method === 'token' && login.from === 'flag' ? flags.natsTokenFile : undefined],
    ['--nats-nkey-file', login?.method === 'nkey' && login.from === 'flag' ? flags.natsNkeyFile : undefined],
    [login?.from === 'flag' ? '--nats-creds' : 'NATS_CREDS', auth && 'credsFile' in auth ? auth.credsFile : undefined],
    [flags.natsKey ? '--nats-key' : 'NATS_KEY', tls?.keyFile],
  ];
  for (const [source, file] of secretFiles) {
    // Warned, not refused: nats and nsc take such files, and a person may share a folder on purpose.
    const open = file ? await exposedKeyProblem(file) : null;
    if (open) warn(`${source} ${file}: ${open}: other users may read this NATS credential; run "chmod 600 ${file}"`);
  }
  // The options travel on (spread into connectNats, quoted by a debug dump): the secret is kept
  // readable for the login but hidden from JSON, inspect and spreads.
  return { servers, name, ...(auth ? { auth: protectAuth(auth) } : {}), ...(tls ? { tls } : {}) };
}

type LoginMethod = 'user' | 'token' | 'nkey' | 'creds';

/** The first line of a creds file as nsc writes it. */
const CREDS_FILE = /-----BEGIN NATS USER JWT-----/;

// Each way to log in, by its flag and by its variable (NATS_PASSWORD goes with either user).
const LOGINS: ReadonlyArray<{ method: LoginMethod; flag: keyof NatsFlagValues; flagName: string; variable: string }> = [
  { method: 'user', flag: 'natsUser', flagName: '--nats-user', variable: 'NATS_USER' },
  { method: 'token', flag: 'natsTokenFile', flagName: '--nats-token-file', variable: 'NATS_TOKEN' },
  { method: 'nkey', flag: 'natsNkeyFile', flagName: '--nats-nkey-file', variable: 'NATS_NKEY_SEED' },
  { method: 'creds', flag: 'natsCreds', flagName: '--nats-creds', variable: 'NATS_CREDS' },
];

const ONE_LOGIN = 'give one way to log in to NATS (a user with NATS_PASSWORD, a token, an nkey seed or a creds file)';

/**
 * The one way to log in that the flags, else the environment, give; undefined for none (the
 * server URL's own user:password@, if any, is then the login). Two given the same way are a
 * usage error: the first was taken and the other dropped without a word, so a right token beside
 * a stale NATS_USER failed as "authorization violation". A flag beats a variable of another kind,
 * as flags beat the environment everywhere else: NATS_USER left in a shell no longer overrides
 * the --nats-creds the command names.
 */
function chooseLogin(flags: NatsFlagValues, env: NodeJS.ProcessEnv, servers: readonly string[], source: string): { method: LoginMethod; from: 'flag' | 'env'; name: string } | undefined {
  const byFlag = LOGINS.filter((l) => Boolean(flags[l.flag]));
  const byEnv = LOGINS.filter((l) => Boolean(env[l.variable]));
  const listed = (names: string[]): string => (names.length <= 2 ? names.join(' and ') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);
  if (byFlag.length > 1) throw new CliError(`${listed(byFlag.map((l) => l.flagName))}: ${ONE_LOGIN}`, 2);
  if (byFlag.length === 0 && byEnv.length > 1) {
    throw new CliError(`${listed(byEnv.map((l) => l.variable))} are ${byEnv.length === 2 ? 'both' : 'all'} set: ${ONE_LOGIN}; unset the others, or choose with a flag`, 2);
  }
  const chosen = byFlag[0] ? { method: byFlag[0].method, from: 'flag' as const, name: byFlag[0].flagName } : byEnv[0] ? { method: byEnv[0].method, from: 'env' as const, name: byEnv[0].variable } : undefined;
  // The transport lets explicit credentials win over a URL's; here both given is a mistake to name.
  if (chosen && servers.some(hasUserinfo)) {
    throw new CliError(`${source} carries credentials (user:password@ or token@) and ${chosen.name} gives others: ${ONE_LOGIN}`, 2);
  }
  return chosen;
}

// user:pass@ or token@ before the host (the URL parser reads userinfo up to the last "@" before the path).
function hasUserinfo(server: string): boolean {
  return /^(?:[a-z][a-z0-9+.-]*:\/\/)?[^/]*@/i.test(server);
}

/** `--signing-key FILE`, for the commands that ask nodes to change something (host, apply, delete). */
export function addSigningKeyFlag(cmd: Command): Command {
  return cmd.option('--signing-key <file>', 'nkey user seed to sign requests with (nodes with --authorized-keys take only signed ones; env METALFLEET_SIGNING_KEY_FILE; create one with "metalfleet keygen")');
}

/** The signing key the flag or METALFLEET_SIGNING_KEY_FILE names; undefined when neither does (requests go unsigned). */
export async function signingKeyFrom(flags: { signingKey?: string }, env: NodeJS.ProcessEnv): Promise<SigningKey | undefined> {
  const file = flags.signingKey ?? env.METALFLEET_SIGNING_KEY_FILE;
  if (!file) return undefined;
  const { loadSigningKey } = await import('../security/index.ts');
  try {
    return await loadSigningKey(file);
  } catch (error) {
    // KeyFileError names the file and what is wrong, never the seed.
    throw new CliError(`${flags.signingKey !== undefined ? '--signing-key' : 'METALFLEET_SIGNING_KEY_FILE'}: ${errorMessage(error)}`, 2);
  }
}

/**
 * What to do about a server that is not there (refused, timed out), at the end of the error line.
 * Failures that say their own remedy (credentials, TLS, a client certificate) get none.
 */
export const UNREACHABLE_HINT = '; is a NATS server running there? Give its address with --nats URL (or NATS_URL)';

/**
 * One line for every command that could not connect (host, apply, audit, ui, hosts, shards...):
 * `cannot reach NATS at URL: what failed`, with the remedy when the server was not there.
 */
export function natsUnreachable(natsUrl: string, error: unknown, retryable: boolean): CliError {
  // A bus error's message starts with the server list, which the line names already.
  const text = error instanceof BusError ? error.message.replace(/^[^ ]*: /, '') : errorMessage(error);
  return new CliError(`cannot reach NATS at ${natsUrl}: ${text.replace(/\s+/g, ' ').trim()}${retryable ? UNREACHABLE_HINT : ''}`);
}

/**
 * A one-shot client's connection (host, apply, delete, audit): it gives up after a few attempts
 * rather than waiting forever for a server that is not there, with a one-line error. A `lasting`
 * one fails the same way at start, then reconnects for as long as it runs. The NATS
 * client is loaded here, on use, so commands that only declare the flags do not load it.
 */
export async function connectClient(flags: NatsFlagValues, env: NodeJS.ProcessEnv, name: string, lasting = false): Promise<Transport> {
  const options = await natsOptionsFrom(flags, env, name);
  await checkNatsTlsFiles(flags, env);
  const { BusConnectError, connectNats, withoutUserinfo } = await import('../bus/nats-transport.ts');
  try {
    // A lasting client (`ui`) outlives a server restart as a node does: three tries a second
    // apart left the dashboard answering 500 for good after an outage of 3 s.
    return await connectNats({ ...options, maxReconnectAttempts: lasting ? -1 : 3, reconnectTimeWaitMs: 1_000, timeoutMs: 10_000 });
  } catch (error) {
    throw natsUnreachable(options.servers.map(withoutUserinfo).join(','), error, error instanceof BusConnectError && error.retryable);
  }
}
