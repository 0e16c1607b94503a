import type { Command } from 'commander';
import type { Transport } from '../ports/index.ts';
import type { SigningKey } from '../security/index.ts';
import { CliError } from './cli-error.ts';
import { errorMessage } from '../api/index.ts';
import { checkNatsTlsFiles, checkNatsUrls, natsFileProblem, natsTlsFrom } from './nats-tls-flags.ts';

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

export async function natsOptionsFrom(flags: NatsFlagValues, env: NodeJS.ProcessEnv, name: string): Promise<NatsCliOptions> {
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
  let auth: NatsCliOptions['auth'];
  const user = flags.natsUser ?? env.NATS_USER;
  if (user) {
    const pass = env.NATS_PASSWORD;
    if (!pass) throw new CliError(`NATS user ${user} given without a password: set NATS_PASSWORD`);
    auth = { user, pass };
  } else if (flags.natsTokenFile || env.NATS_TOKEN) {
    auth = { token: flags.natsTokenFile ? await read(flags.natsTokenFile, '--nats-token-file') : (env.NATS_TOKEN as string) };
  } else if (flags.natsNkeyFile || env.NATS_NKEY_SEED) {
    auth = flags.natsNkeyFile
      ? { nkeySeed: await read(flags.natsNkeyFile, '--nats-nkey-file'), from: `--nats-nkey-file ${flags.natsNkeyFile}` }
      : { nkeySeed: env.NATS_NKEY_SEED as string, from: 'NATS_NKEY_SEED' };
  } else if (flags.natsCreds || env.NATS_CREDS) {
    const credsFile = (flags.natsCreds ?? env.NATS_CREDS) as string;
    // The client reads it on connecting, after dialling: checked here so that its flag is named.
    const problem = await natsFileProblem(credsFile);
    if (problem) throw new CliError(`${flags.natsCreds ? '--nats-creds' : 'NATS_CREDS'} ${credsFile}: ${problem}`, 2);
    auth = { credsFile };
  }
  return { servers, name, ...(auth ? { auth } : {}), ...(tls ? { tls } : {}) };
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
    throw new CliError(`--signing-key: ${errorMessage(error)}`, 2);
  }
}

/**
 * What to do about a server that is not there (refused, timed out), at the end of the error line.
 * Failures that say their own remedy (credentials, TLS, a client certificate) get none.
 */
export const UNREACHABLE_HINT = '; is a NATS server running there? Give its address with --nats URL (or NATS_URL)';

/**
 * A one-shot client's connection (host, apply, delete, audit): it gives up after a few attempts
 * rather than waiting forever for a server that is not there, with a one-line error. The NATS
 * client is loaded here, on use, so commands that only declare the flags do not load it.
 */
export async function connectClient(flags: NatsFlagValues, env: NodeJS.ProcessEnv, name: string): Promise<Transport> {
  const options = await natsOptionsFrom(flags, env, name);
  await checkNatsTlsFiles(flags, env);
  const { BusConnectError, connectNats } = await import('../bus/nats-transport.ts');
  try {
    return await connectNats({ ...options, maxReconnectAttempts: 3, reconnectTimeWaitMs: 1_000, timeoutMs: 10_000 });
  } catch (error) {
    throw new CliError(`NATS: ${errorMessage(error)}${error instanceof BusConnectError && error.retryable ? UNREACHABLE_HINT : ''}`);
  }
}
