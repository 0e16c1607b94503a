import { readFileSync } from 'node:fs';
import { createFixtureProvisioner } from '../adapters/fixture/index.ts';
import { createIronicClient, IronicError } from '../adapters/ironic/client/index.ts';
import type { IronicClientOptions } from '../adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../adapters/ironic/provisioner/index.ts';
import type { DeployImages } from '../adapters/ironic/provisioner/index.ts';
import { createRoutedProvisioner } from '../adapters/routed/index.ts';
import type { Logger, Provisioner } from '../ports/index.ts';
import { CliError } from './cli-error.ts';
import type { Env } from './config.ts';
import { errorMessage, redactUrl } from '../api/index.ts';

export const IRONIC_LABEL = 'metalfleet.io/ironic';

export interface IronicFlags {
  readonly urls: readonly string[];
  readonly driver?: string;
  readonly pollMs?: number;
  readonly imageCheck: boolean;
  /** The deploy ramdisk and ISO nodes boot; default DEPLOY_KERNEL_URL, DEPLOY_RAMDISK_URL, DEPLOY_ISO_URL. */
  readonly deploy?: DeployImages;
}

// One provisioner per Ironic endpoint, each its own capacity pool; with several, hosts pick one
// with the metalfleet.io/ironic label (the endpoint URL), unlabelled hosts go to the first.
// A URL the client refuses is the --ironic value's fault (IRONIC_ENDPOINT is checked as a URL when
// the environment is read): named so, exit 2, not left to the plugin registry's "create() failed".
// The URL is quoted without its userinfo: a password written into it stays out of the line.
function ironicClientFor<C>(url: string, create: () => C): C {
  try {
    return create();
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`--ironic ${redactUrl(url)}: ${errorMessage(err).replace(/^ironic client: /, '')}`, 2);
  }
}

export async function ironicProvisioner(flags: IronicFlags, env: Env, log: Logger): Promise<Provisioner> {
  if (flags.driver !== undefined && flags.driver !== 'fake-hardware') {
    throw new CliError(`--ironic-driver: only "fake-hardware" can replace the real driver (got "${flags.driver}")`, 2);
  }
  const routes = new Map<string, Provisioner>();
  for (const url of flags.urls) {
    const client = ironicClientFor(url, () => createIronicClient({
      endpoint: url,
      ...clientAuth(env),
      // Which Ironic behaviours apply (firmware 1.86, servicing 1.87...) follows from this one number.
      // Logged when negotiated, not after connect: an Ironic down at start negotiates with a host's
      // first call, and an upgraded one on a later renegotiation; both went unlogged.
      onVersion: (version, previous) => log.info({ ironic: url, apiVersion: version.text, ...(previous ? { previous: previous.text } : {}) }, 'negotiated the Ironic API version'),
    }));
    try {
      await client.connect();
    } catch (err) {
      // Ironic not up yet (or restarting), as BMO's "provisioner not ready": the node stays up and
      // hosts back off until it answers. A wrong configuration (too old, auth, TLS) still stops it.
      if (!(err instanceof IronicError && err.retryable)) throw new CliError(`Ironic at ${url}: ${errorMessage(err)}`, 1);
      log.warn({ ironic: url, err: err.message }, 'Ironic is not answering yet; hosts wait and retry');
    }
    routes.set(url, createIronicProvisioner({
      client,
      driverOverride: flags.driver === 'fake-hardware' ? { hardwareType: 'fake-hardware' } : null,
      deploy: flags.deploy ?? { kernelUrl: env.DEPLOY_KERNEL_URL, ramdiskUrl: env.DEPLOY_RAMDISK_URL, isoUrl: env.DEPLOY_ISO_URL },
      polls: flags.pollMs !== undefined ? { shortMs: flags.pollMs, longMs: flags.pollMs } : {},
      imageCheck: { enabled: flags.imageCheck },
      log,
    }));
  }
  const only = routes.size === 1 ? [...routes.values()][0] : undefined;
  return only ?? createRoutedProvisioner({ routes, label: IRONIC_LABEL });
}

// Whole milliseconds, as the client takes them: 1.001 s is 1000.9999999999999 ms in floating point.
function clientAuth(env: Env): Pick<IronicClientOptions, 'auth' | 'tls' | 'timeoutMs'> {
  // A password without a user name would be dropped without a word (no auth, or the token's):
  // refused instead, naming both variables and never the value.
  if (env.IRONIC_PASSWORD && !env.IRONIC_USERNAME) throw new CliError('IRONIC_PASSWORD is set but IRONIC_USERNAME is not: Ironic basic auth needs both; set IRONIC_USERNAME too (or unset IRONIC_PASSWORD)', 2);
  const auth: IronicClientOptions['auth'] = env.IRONIC_USERNAME
    ? { type: 'basic', username: env.IRONIC_USERNAME, password: env.IRONIC_PASSWORD ?? '' }
    : env.IRONIC_TOKEN ? { type: 'bearer', token: env.IRONIC_TOKEN } : { type: 'none' };
  const ca = env.IRONIC_CACERT_FILE ? readPem(env.IRONIC_CACERT_FILE, 'IRONIC_CACERT_FILE') : undefined;
  return { auth, tls: { ...(ca ? { ca } : {}), insecure: env.IRONIC_INSECURE }, timeoutMs: Math.round(env.IRONIC_CLIENT_TIMEOUT * 1000) };
}

function readPem(path: string, variable: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(`${variable}=${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 2);
  }
}

export function fixtureProvisioner(latencyMs: number): Provisioner {
  // The fixture answers "still working" once per deployment so the slots are visibly busy.
  return createFixtureProvisioner({ latencyMs, provisionPasses: latencyMs > 0 ? 2 : 1, pollMs: latencyMs });
}
