import { constants } from 'node:fs';
import { CliError } from './cli-error.ts';

// The NATS URL and TLS checks every cluster command shares: a mistake here used to pass quietly
// (issue 33.7): `--nats-cert` without `--nats-key` dropped the certificate, and `http://HOST:PORT`
// was taken as a NATS server.

/** The schemes the NATS client speaks over TCP; ws:// needs a client this CLI does not ship. */
const NATS_SCHEMES = ['nats', 'tls'] as const;

/** Each server URL of `--nats` (or NATS_URL): nats://, tls:// or a bare HOST:PORT, else a CliError naming the source. */
export function checkNatsUrls(servers: readonly string[], source: string): void {
  for (const server of servers) {
    const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(server)?.[1]?.toLowerCase();
    if (scheme !== undefined && !(NATS_SCHEMES as readonly string[]).includes(scheme)) {
      // Only the scheme is quoted: the rest of a URL may carry user:password.
      throw new CliError(`${source}: ${scheme}:// is not a NATS URL; use nats://HOST:PORT or tls://HOST:PORT`, 2);
    }
    // The client dialled these anyway and failed as "getaddrinfo ENOTFOUND nats" or "Invalid
    // URL", then asked whether a NATS server was running there.
    const problem = urlProblem(server, scheme);
    if (problem) throw new CliError(`${source}: "${shown(server)}" is not a NATS server URL: ${problem}; use nats://HOST:PORT or tls://HOST:PORT`, 2);
  }
}

function urlProblem(server: string, scheme: string | undefined): string | null {
  // Not user:password@HOST: a user may be called "nats".
  const missing = /^(nats|tls):\/?(?!\/)[^@]*$/i.exec(server);
  if (scheme === undefined && missing) return `"//" is missing after "${missing[1]}:"`;
  // HOST[:PORT] with any scheme and user:password@ taken off; an IPv6 host is in brackets.
  const rest = server.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const authority = rest.slice(rest.lastIndexOf('@') + 1).split('/')[0] ?? '';
  const m = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(authority);
  if (!m?.[1]) return 'it names no host';
  const port = m[2];
  if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65_535)) return 'the port must be 1-65535';
  try {
    new URL(`nats://${authority}`);
  } catch {
    return 'it cannot be read as HOST:PORT';
  }
  // A URL ends its host at the first "/": the client read no URL ("Invalid URL"), and nothing
  // found a password to hide from the error that quoted it.
  const at = rest.lastIndexOf('@');
  if (at >= 0 && rest.slice(0, at).includes('/')) return 'its user:password@ (or token@) holds a "/", where the host would end: write it as %2F';
  return null;
}

/** A server URL as it may be quoted: everything up to its last "@" (user:password, a token, even with a "/" in it) is hidden. */
function shown(server: string): string {
  return server.replace(/^((?:[a-z][a-z0-9+.-]*:\/\/)?).*@/i, '$1***@');
}

export interface NatsTlsFiles {
  readonly caFile?: string;
  readonly certFile?: string;
  readonly keyFile?: string;
}

/** The TLS files from flags, else the environment; a certificate and its key come together or not at all. */
export function natsTlsFrom(flags: { natsCa?: string; natsCert?: string; natsKey?: string }, env: NodeJS.ProcessEnv): NatsTlsFiles | undefined {
  const caFile = flags.natsCa ?? env.NATS_CA;
  const certFile = flags.natsCert ?? env.NATS_CERT;
  const keyFile = flags.natsKey ?? env.NATS_KEY;
  if (certFile && !keyFile) throw new CliError('--nats-cert (or NATS_CERT) given without --nats-key (or NATS_KEY): mutual TLS needs the client certificate and its key together', 2);
  if (keyFile && !certFile) throw new CliError('--nats-key (or NATS_KEY) given without --nats-cert (or NATS_CERT): mutual TLS needs the client certificate and its key together', 2);
  if (!caFile && !certFile) return undefined;
  return { ...(caFile ? { caFile } : {}), ...(certFile && keyFile ? { certFile, keyFile } : {}) };
}

/**
 * Why the file at `path` cannot be read, or null. Said before anything dials: the client found
 * out only on connecting, and blamed the server ("TLS setup failed (server does not support
 * 'tls')" for a CA file that does not exist).
 */
export async function natsFileProblem(path: string): Promise<string | null> {
  const { access, stat } = await import('node:fs/promises');
  const info = await stat(path).catch((err: unknown) => (err as NodeJS.ErrnoException).code ?? 'unreadable');
  if (info === 'ENOENT' || info === 'ENOTDIR') return 'does not exist';
  if (typeof info === 'string') return `cannot read it (${info})`;
  if (info.isDirectory()) return 'is a folder, not a file';
  return access(path, constants.R_OK).then(() => null, (err: unknown) => `cannot read it (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
}

type TlsSources = ReadonlyArray<readonly [source: string, path: string | undefined]>;

// The CA, certificate and key, each with the flag or variable it came from.
function tlsSources(flags: { natsCa?: string; natsCert?: string; natsKey?: string }, env: NodeJS.ProcessEnv): TlsSources {
  return [
    [flags.natsCa ? '--nats-ca' : 'NATS_CA', flags.natsCa ?? env.NATS_CA],
    [flags.natsCert ? '--nats-cert' : 'NATS_CERT', flags.natsCert ?? env.NATS_CERT],
    [flags.natsKey ? '--nats-key' : 'NATS_KEY', flags.natsKey ?? env.NATS_KEY],
  ];
}

/**
 * The TLS files of the flags or environment (natsTlsFrom) are readable files holding what they
 * are given as (checkNatsTlsContent), else a CliError naming the flag or variable (exit 2).
 */
export async function checkNatsTlsFiles(flags: { natsCa?: string; natsCert?: string; natsKey?: string }, env: NodeJS.ProcessEnv): Promise<void> {
  const given = tlsSources(flags, env);
  for (const [source, path] of given) {
    if (!path) continue;
    const problem = await natsFileProblem(path);
    if (problem) throw new CliError(`${source} ${path}: ${problem}`, 2);
  }
  await contentProblem(given);
}

/**
 * What the TLS files hold, when every one given is a readable file (one that is not is for
 * checkNatsTlsFiles to name): the CA file certificates, the certificate file a certificate, the
 * key file an unencrypted key that is the certificate's. Before anything dials: the TLS stack
 * said "PEM routines::no start line" on connecting, and the CLI asked whether a NATS server was
 * running there.
 */
export async function checkNatsTlsContent(flags: { natsCa?: string; natsCert?: string; natsKey?: string }, env: NodeJS.ProcessEnv): Promise<void> {
  const given = tlsSources(flags, env);
  for (const [, path] of given) if (path && (await natsFileProblem(path))) return;
  await contentProblem(given);
}

async function contentProblem(given: TlsSources): Promise<void> {
  const [ca, cert, key] = given;
  if (!ca?.[1] && !cert?.[1] && !key?.[1]) return;
  const { tlsFilesProblem } = await import('../bus/nats-connect-problems.ts');
  const wrong = await tlsFilesProblem({
    ...(ca?.[1] ? { caFile: ca[1] } : {}), ...(cert?.[1] ? { certFile: cert[1] } : {}), ...(key?.[1] ? { keyFile: key[1] } : {}),
  }, cert?.[1] ? `${cert[0]} ${cert[1]}` : undefined);
  if (wrong) {
    const source = { ca: ca?.[0], cert: cert?.[0], key: key?.[0] }[wrong.file];
    throw new CliError(`${source} ${wrong.path}: ${wrong.detail}`, 2);
  }
}
