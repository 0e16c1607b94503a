import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { SEED_STATUSES } from './status.ts';

// A machine the simulator starts with. Names follow MAAS's own rules so a seed cannot hold a
// machine MAAS would refuse: hostnames are DNS labels, tags/zones/pools MAAS model names.

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;
const DOMAIN = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;
const MODEL_NAME = /^\w[\w-]*$/;

export const SeedMachineSchema = z.strictObject({
  hostname: z.string().regex(DNS_LABEL, 'must be a DNS label: letters, digits and "-", at most 63 characters'),
  zone: z.string().regex(MODEL_NAME, 'must be letters, digits, "_" or "-"').optional(),
  pool: z.string().regex(MODEL_NAME, 'must be letters, digits, "_" or "-"').optional(),
  tags: z.array(z.string().regex(MODEL_NAME, 'must be letters, digits, "_" or "-"')).optional(),
  cpuCount: z.number().int('must be a whole number').min(1, 'must be at least 1'),
  memoryMb: z.number().int('must be a whole number').min(1, 'must be at least 1'),
  domain: z.string().regex(DOMAIN, 'must be a DNS domain name').optional(),
  powerType: z.string().min(1, 'must not be empty').optional(),
  status: z.enum(SEED_STATUSES, { error: `must be one of ${SEED_STATUSES.join(', ')}` }).optional(),
});

export type SeedMachine = z.infer<typeof SeedMachineSchema>;

export const SeedMachinesSchema = z.array(SeedMachineSchema, { error: 'expected a list of machines' }).superRefine((machines, ctx) => {
  const seen = new Map<string, number>();
  machines.forEach((m, i) => {
    const key = m.hostname.toLowerCase();
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    else ctx.addIssue({ code: 'custom', path: [i, 'hostname'], message: `"${m.hostname}" is already the hostname of machine [${first}]` });
  });
});

/** A seed that cannot be used; the message names the source and the field. */
export class SeedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SeedError';
  }
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
}

/** Validates machines given in code or read from a file; throws SeedError naming `source` and the field. */
export function validateSeedMachines(input: unknown, source: string): SeedMachine[] {
  const parsed = SeedMachinesSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.slice(0, 5).map((issue) => {
    const where = formatPath(issue.path);
    return `${source}: ${where === '' ? '' : `${where}: `}${issue.message}`;
  });
  const more = parsed.error.issues.length - lines.length;
  throw new SeedError(lines.join('\n') + (more > 0 ? `\n${source}: and ${more} more` : ''));
}

/** A seed file's text (YAML or JSON: a list of machines) → machines, or a SeedError. */
export function parseSeedMachines(text: string, source: string): SeedMachine[] {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (err) {
    throw new SeedError(`${source}: not valid YAML or JSON: ${(err as Error).message.split('\n')[0] ?? ''}`);
  }
  return validateSeedMachines(data, source);
}
