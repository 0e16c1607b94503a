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
    if (scheme === undefined || (NATS_SCHEMES as readonly string[]).includes(scheme)) continue;
    // Only the scheme is quoted: the rest of a URL may carry user:password.
    throw new CliError(`${source}: ${scheme}:// is not a NATS URL; use nats://HOST:PORT or tls://HOST:PORT`, 2);
  }
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
