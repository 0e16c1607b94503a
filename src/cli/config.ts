import { z } from 'zod';
import type { MachineConfig } from '../machines/bmh/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../machines/bmh/index.ts';
import type { CallLimits, NodeConfig } from '../node/index.ts';
import { CliError } from './cli-error.ts';
import { closestWord } from './did-you-mean.ts';
import { redactUrl } from '../api/index.ts';

/** The longest delay a Node timer takes: past it setTimeout runs after 1 ms (and warns each time). */
export const MAX_TIMER_MS = 2_147_483_647;

/** The most shards a cluster may have: METALFLEET_SHARDS and --shards alike. */
export const MAX_SHARDS = 65_536;

// A whole-number variable. z.coerce alone read one set but empty ("PROVISIONING_LIMIT=") as 0:
// no capacity limit at all, or no provisioning retry, without a word.
function envInt(min: number, fallback: number, max = Number.MAX_SAFE_INTEGER) {
  return z.string().trim().min(1, 'is set but empty: unset it or give a whole number')
    .pipe(z.coerce.number<string>().int().min(min).max(max))
    .default(fallback);
}

// The environment metalfleet reads, parsed once here and passed down as values; nothing below
// src/cli looks at process.env.
const Env = z.object({
  PROVISIONING_LIMIT: envInt(0, 20),
  MAX_PROVISIONING_RETRIES: envInt(0, DEFAULT_MACHINE_CONFIG.maxProvisioningRetries),
  METALFLEET_SHARDS: envInt(1, 256, MAX_SHARDS),
  METALFLEET_LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).optional(),
  // A folder of provisioner plugins to load at start (--plugin-dir).
  METALFLEET_PLUGIN_DIR: z.string().min(1).optional(),
  // Ironic, with BMO's variable names where it has them.
  IRONIC_ENDPOINT: z.url().optional(),
  IRONIC_USERNAME: z.string().min(1).optional(),
  IRONIC_PASSWORD: z.string().optional(),
  IRONIC_TOKEN: z.string().min(1).optional(),
  IRONIC_CACERT_FILE: z.string().min(1).optional(),
  IRONIC_INSECURE: z.stringbool().default(false),
  // Seconds that become a timer: past MAX_TIMER_MS every call timed out after 1 ms, and under a
  // millisecond the Ironic client refused it in words that blamed --ironic.
  IRONIC_CLIENT_TIMEOUT: z.coerce.number<string>().min(0.001, 'must be at least 0.001 (seconds)').max(Math.floor(MAX_TIMER_MS / 1000), `must be at most ${Math.floor(MAX_TIMER_MS / 1000)} (seconds, what a timer holds)`).default(30),
  IRONIC_DRIVER_OVERRIDE: z.literal('fake-hardware').optional(),
  DEPLOY_KERNEL_URL: z.url().optional(),
  DEPLOY_RAMDISK_URL: z.url().optional(),
  DEPLOY_ISO_URL: z.url().optional(),
  // MAAS, with the names CAPMAAS reads.
  MAAS_ENDPOINT: z.url().optional(),
  MAAS_API_KEY: z.string().min(1).optional(),
  // CAPMAAS issue #85: turning swap off needs an admin key.
  MAAS_SKIP_SWAP: z.stringbool().default(false),
});
export type Env = z.infer<typeof Env>;

export function readEnv(env: NodeJS.ProcessEnv = process.env): Env {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    // Name the variable and the rule, never the value: some of these are secrets.
    const issue = parsed.error.issues[0];
    throw new CliError(`environment variable ${String(issue?.path[0])}: ${issue?.message ?? 'invalid'}`, 2);
  }
  return parsed.data;
}

export interface NodeConfigInput {
  readonly name: string;
  readonly env: Env;
  /** Capacity slots per pool: each key checked against the node's backends, `source` saying where it was written. */
  readonly limits?: { readonly values: Readonly<Record<string, number>>; readonly source: string; readonly known: KnownPools };
  readonly defaultLimit?: number;
  readonly machine?: Partial<MachineConfig>;
  /** --max-calls, parsed (max-calls.ts); absent: DEFAULT_CALL_LIMITS. */
  readonly calls?: CallLimits;
}

export function nodeConfig(input: NodeConfigInput): NodeConfig {
  return {
    name: input.name,
    shardCount: input.env.METALFLEET_SHARDS,
    machine: { ...DEFAULT_MACHINE_CONFIG, maxProvisioningRetries: input.env.MAX_PROVISIONING_RETRIES, ...input.machine },
    capacity: {
      limits: input.limits ? poolLimits(input.limits.values, input.limits.source, input.limits.known) : {},
      // 0 in PROVISIONING_LIMIT means no limit, as a broker limit of 0 would stop everything.
      defaultLimit: input.defaultLimit ?? (input.env.PROVISIONING_LIMIT === 0 ? Number.POSITIVE_INFINITY : input.env.PROVISIONING_LIMIT),
      ttlMs: 30_000,
    },
    supervision: { maxRestarts: 5, windowMs: 60_000, backoff: { initialMs: 100, maxMs: 30_000 } },
    askTimeoutMs: 5_000,
    ...(input.calls ? { calls: input.calls } : {}),
  };
}

/**
 * What a per-pool limit may name: a backend kind (`ironic`, `fixture`, `maas`, a plugin's name)
 * or one of its pools, which are named `KIND:…` (`ironic:http://ironic:6385`, `lab:pdu-7`). The
 * pools themselves are made host by host, so a kind is as far as a key can be checked.
 */
export interface KnownPools {
  readonly kinds: readonly string[];
  /** Pools a backend was configured with whatever their name (`fixture-server --pool rack-1`). */
  readonly pools?: readonly string[];
}

/**
 * Throws a CliError (exit 2) for the first key naming no backend of the node: the broker and the
 * call bound look a pool up by its name, so a mistyped one was kept and never found, and the
 * backend ran at the default limit without a word.
 */
export function checkPoolKeys(keys: Iterable<string>, known: KnownPools, source: string): void {
  for (const key of keys) {
    const colon = key.indexOf(':');
    const kind = colon < 0 ? key : key.slice(0, colon);
    const pools = known.pools ?? [];
    if (known.kinds.includes(kind) || pools.includes(key)) continue;
    // A pool name may hold a URL, and a URL its password.
    const shown = redactUrl(key);
    const meantKind = closestWord(kind, known.kinds);
    const meant = closestWord(key, pools) ?? (meantKind === null ? null : `${meantKind}${shown.slice(kind.length)}`);
    const names = [...known.kinds, ...pools.filter((p) => !known.kinds.includes(p))].map(redactUrl);
    throw new CliError(`${source}: "${shown}" names no backend or capacity pool of this node (known: ${names.join(', ')}, or a pool of one as KIND:…)${meant === null ? '' : `; did you mean ${meant}?`}`, 2);
  }
}

// Capacity limits by pool, checked; 0 is no limit, as PROVISIONING_LIMIT=0 and --limit 0 are.
function poolLimits(values: Readonly<Record<string, number>>, source: string, known: KnownPools): Record<string, number> {
  checkPoolKeys(Object.keys(values), known, source);
  const out: Record<string, number> = {};
  for (const [pool, n] of Object.entries(values)) {
    if (typeof n !== 'number' || !(Number.isInteger(n) || n === Number.POSITIVE_INFINITY) || n < 0) {
      throw new CliError(`${source}: "${redactUrl(pool)}": expected a whole number >= 0 (0 = no limit), got ${String(n)}`, 2);
    }
    out[pool] = n === 0 ? Number.POSITIVE_INFINITY : n;
  }
  return out;
}

// A positive integer flag, or a CliError that names the flag.
export function intFlag(name: string, min = 0, max = Number.MAX_SAFE_INTEGER, unit = ''): (value: string) => number {
  return (value: string) => {
    // Number('') and Number(' ') are 0: an empty value (`--limit "$UNSET"`) was taken as 0,
    // which for --limit means unlimited capacity.
    const n = value.trim() === '' ? Number.NaN : Number(value);
    if (!Number.isInteger(n) || n < min) throw new CliError(`${name}: expected a whole number >= ${min}, got "${value}"`, 2);
    if (n > max) throw new CliError(`${name}: expected a whole number from ${min} to ${max}${unit ? ` (${unit})` : ''}, got "${value}"`, 2);
    return n;
  };
}


/**
 * A flag in milliseconds that becomes a timer: bounded by MAX_TIMER_MS, as --latency 3000000000
 * made every fixture call instant and printed a TimeoutOverflowWarning per call.
 */
export function msFlag(name: string, min = 0): (value: string) => number {
  return intFlag(name, min, MAX_TIMER_MS, 'milliseconds');
}

/**
 * A TCP port flag (0: any free one). intFlag alone let 99999 through to listen(), whose
 * "options.port should be >= 0 and < 65536" came after NATS was connected, or not at all.
 */
export function portFlag(name: string): (value: string) => number {
  return (value: string) => {
    const n = intFlag(name, 0)(value);
    if (n > 65_535) throw new CliError(`${name}: expected a port from 0 to 65535, got "${value}"`, 2);
    return n;
  };
}

/**
 * --shards, bounded as METALFLEET_SHARDS is: past the bound a node started a lease per shard
 * (a billion of them) and `host`/`inspect` looked for a host on a shard no node owns.
 */
export function shardsFlag(value: string): number {
  const n = intFlag('--shards', 1)(value);
  if (n > MAX_SHARDS) throw new CliError(`--shards: expected a whole number from 1 to ${MAX_SHARDS}, got "${value}"`, 2);
  return n;
}

/** The most copies JetStream keeps of a stream or KV bucket: past it NATS refused, after the node had connected. */
export const MAX_REPLICAS = 5;

/** --replicas: 1 to MAX_REPLICAS. */
export function replicasFlag(value: string): number {
  const n = intFlag('--replicas', 1)(value);
  if (n > MAX_REPLICAS) throw new CliError(`--replicas: expected a whole number from 1 to ${MAX_REPLICAS}, got "${value}"`, 2);
  return n;
}
