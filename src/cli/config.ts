import { z } from 'zod';
import type { MachineConfig } from '../machines/bmh/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../machines/bmh/index.ts';
import type { CallLimits, NodeConfig } from '../node/index.ts';
import { CliError } from './cli-error.ts';

// The environment metalfleet reads, parsed once here and passed down as values; nothing below
// src/cli looks at process.env.
const Env = z.object({
  PROVISIONING_LIMIT: z.coerce.number().int().min(0).default(20),
  MAX_PROVISIONING_RETRIES: z.coerce.number().int().min(0).default(DEFAULT_MACHINE_CONFIG.maxProvisioningRetries),
  METALFLEET_SHARDS: z.coerce.number().int().min(1).max(65_536).default(256),
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
  IRONIC_CLIENT_TIMEOUT: z.coerce.number().positive().default(30),
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
  readonly limits?: Record<string, number>;
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
      limits: input.limits ?? {},
      // 0 in PROVISIONING_LIMIT means no limit, as a broker limit of 0 would stop everything.
      defaultLimit: input.defaultLimit ?? (input.env.PROVISIONING_LIMIT === 0 ? Number.POSITIVE_INFINITY : input.env.PROVISIONING_LIMIT),
      ttlMs: 30_000,
    },
    supervision: { maxRestarts: 5, windowMs: 60_000, backoff: { initialMs: 100, maxMs: 30_000 } },
    askTimeoutMs: 5_000,
    ...(input.calls ? { calls: input.calls } : {}),
  };
}

// A positive integer flag, or a CliError that names the flag.
export function intFlag(name: string, min = 0): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new CliError(`${name}: expected a whole number >= ${min}, got "${value}"`, 2);
    return n;
  };
}
