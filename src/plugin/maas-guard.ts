import { z } from 'zod';
import type { MaasFailureReason, MaasResult } from '../machines/maas-machine/index.ts';
import type { MaasDriver } from '../ports/index.ts';
import { errorMessage, MetalfleetError } from '../api/index.ts';
import { redact, secretOptionValues, TIMED_OUT, withinTimeout } from './guard.ts';

// A MAAS API key is consumer:token:secret; an OAuth header or a log line may carry any part alone.
const MAAS_KEY = /^([A-Za-z0-9]+):([A-Za-z0-9]+):([A-Za-z0-9]+)$/;

/** The credentials among a MaasMachine plugin's options: credential-named values and any MAAS API key, whole and by part. */
export function maasSecrets(options: Readonly<Record<string, string>>): string[] {
  const out = new Set(secretOptionValues(options));
  for (const v of Object.values(options)) {
    const key = MAAS_KEY.exec(v);
    if (!key) continue;
    out.add(v);
    for (const part of key.slice(1)) if (part !== undefined && part.length >= 8) out.add(part);
  }
  return [...out];
}

const REASONS = ['noMatch', 'forbidden', 'heldByAnotherUser', 'conflict', 'broken', 'imageNotFound', 'addressInUse', 'addressInvalid', 'subnetNotFound', 'interfaceNotFound'] as const satisfies readonly MaasFailureReason[];
// Every reason the machine knows is accepted: a reason added to MaasFailureReason fails this check until listed.
const allReasons: [Exclude<MaasFailureReason, (typeof REASONS)[number]>] extends [never] ? true : false = true;
void allReasons;

const MaasViewShape = z.object({
  systemId: z.string(), hostname: z.string(), fqdn: z.string(), statusName: z.string(), powerState: z.string(),
  ipAddresses: z.array(z.string()), zone: z.string(), architecture: z.string().optional(),
  owner: z.string().nullable().optional(), ownedBySelf: z.boolean().optional(),
});
const MaasResultShape = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('done'), machine: MaasViewShape.optional() }),
  z.object({ kind: z.literal('listed'), machines: z.array(MaasViewShape) }),
  z.object({ kind: z.literal('notFound') }),
  z.object({ kind: z.literal('failed'), message: z.string(), reason: z.enum(REASONS).optional() }),
  z.object({ kind: z.literal('transient'), message: z.string() }),
]);
const DnsRecordShape = z.object({ id: z.number().int(), fqdn: z.string(), ips: z.array(z.string()) });
const NicShape = z.object({
  name: z.string(), tags: z.array(z.string()),
  addresses: z.array(z.object({ ip: z.string(), subnetCidr: z.string().optional(), subnetName: z.string().optional() })),
});

// What each promise-returning method must resolve to, and how the message names it.
const ANSWERS = {
  findDns: [DnsRecordShape.nullable(), 'a DnsRecord or null'],
  createDns: [DnsRecordShape, 'a DnsRecord'],
  updateDns: [DnsRecordShape, 'a DnsRecord'],
  deleteDns: [z.unknown(), 'nothing'],
  ownerData: [z.record(z.string(), z.string()).nullable(), 'a record of strings or null'],
  setOwnerData: [z.unknown(), 'nothing'],
  findReservedIp: [z.string().nullable(), 'an address or null'],
  reserveIp: [z.string(), 'an address'],
  releaseIp: [z.boolean(), 'a boolean'],
  machineInterfaces: [z.array(NicShape).nullable(), 'a list of NICs or null'],
} as const satisfies Record<Exclude<keyof MaasDriver, 'endpoint' | 'pool' | 'run' | 'requests'>, readonly [z.ZodType, string]>;

const MAAS_KINDS = new Set(['done', 'listed', 'notFound', 'failed', 'transient']);

// What a plugin answered, for the message: its type, kind or first wrong field; never a value.
function describe(answer: unknown, error: z.ZodError, kinds?: ReadonlySet<string>): string {
  if (answer === null || typeof answer !== 'object') return answer === null ? 'null' : typeof answer === 'undefined' ? 'undefined' : `a ${typeof answer}`;
  if (kinds) {
    const kind = (answer as Record<string, unknown>)['kind'];
    if (typeof kind !== 'string' || !kinds.has(kind)) return typeof kind === 'string' ? `kind ${JSON.stringify(kind.slice(0, 40))}` : 'an object without a kind';
  }
  const issue = error.issues[0];
  return `${Array.isArray(answer) ? 'a list' : 'an object'} whose ${issue?.path.join('.') || 'shape'} is wrong (${issue?.message ?? 'invalid'})`;
}

/**
 * A MaasMachine plugin's driver as the MAAS actors get it, guarded as guardProvisioner guards a
 * Provisioner: run's answer is checked against the MaasResult shape (anything else is a failed
 * result naming the plugin, never retried); a throw, synchronous or not, or a call that does not
 * answer within `timeoutMs` is the transient result. The other methods reject as the built-in
 * driver does: a MetalfleetError, retryable for a throw or a timeout (a plugin's own
 * MetalfleetError keeps its code, retryability and DNS domain), not retryable for a wrong answer.
 * No message passed on carries the MAAS API key or a credential-named option.
 */
export function guardMaasDriver(made: MaasDriver, plugin: string, options: Readonly<Record<string, string>>, timeoutMs: number): MaasDriver {
  const secrets = maasSecrets(options);
  const target = made as unknown as Record<string, unknown>;
  const late = (m: string): string => `provisioner plugin ${plugin}: ${m} did not answer within ${timeoutMs / 1000} s`;

  async function run(...args: unknown[]): Promise<MaasResult> {
    let answer: unknown;
    try {
      answer = await withinTimeout(() => (target['run'] as (...a: unknown[]) => unknown).apply(made, args), timeoutMs);
    } catch (err) {
      const message = redact(errorMessage(err), secrets);
      // As the actor reads the built-in driver's rejections: a MetalfleetError not retryable fails the call.
      return err instanceof MetalfleetError && !err.retryable ? { kind: 'failed', message } : { kind: 'transient', message };
    }
    if (answer === TIMED_OUT) return { kind: 'transient', message: redact(late('run'), secrets) };
    const parsed = MaasResultShape.safeParse(answer);
    if (!parsed.success) {
      return { kind: 'failed', message: redact(`provisioner plugin ${plugin}: run answered ${describe(answer, parsed.error, MAAS_KINDS)}, not a MaasResult (the plugin must be fixed)`, secrets) };
    }
    const result = answer as MaasResult;
    if (result.kind === 'failed' || result.kind === 'transient') {
      const message = redact(result.message, secrets);
      return message === result.message ? result : { ...result, message };
    }
    return result;
  }

  const call = (m: keyof typeof ANSWERS) => async (...args: unknown[]): Promise<unknown> => {
    const [shape, what] = ANSWERS[m];
    let answer: unknown;
    try {
      answer = await withinTimeout(() => (target[m] as (...a: unknown[]) => unknown).apply(made, args), timeoutMs);
    } catch (err) {
      throw failure(err, `provisioner plugin ${plugin}: ${m} failed: `, secrets);
    }
    if (answer === TIMED_OUT) throw new MetalfleetError('timeout', redact(late(m), secrets), true);
    const parsed = shape.safeParse(answer);
    if (!parsed.success) {
      throw new MetalfleetError('pluginBadAnswer', redact(`provisioner plugin ${plugin}: ${m} answered ${describe(answer, parsed.error)}, not ${what} (the plugin must be fixed)`, secrets), false);
    }
    return m === 'deleteDns' || m === 'setOwnerData' ? undefined : answer;
  };

  const guarded: Record<string, unknown> = {
    endpoint: readString(() => made.endpoint, `plugin:${plugin}`),
    pool: readString(() => made.pool, `plugin:${plugin}`),
    run,
  };
  for (const m of Object.keys(ANSWERS) as Array<keyof typeof ANSWERS>) if (typeof target[m] === 'function') guarded[m] = call(m);
  const requests = target['requests'];
  if (typeof requests === 'function') {
    guarded['requests'] = () => {
      try {
        const counts: unknown = (requests as () => unknown).call(made);
        return Array.isArray(counts) ? counts : [];
      } catch {
        return [];
      }
    };
  }
  return guarded as unknown as MaasDriver;
}

// endpoint and pool, read once: the actors read them on every turn and must not meet a throwing getter.
function readString(read: () => unknown, fallback: string): string {
  try {
    const v = read();
    return typeof v === 'string' && v !== '' ? v : fallback;
  } catch {
    return fallback;
  }
}

// A throw as the driver's failure: retryable, unless the plugin's own MetalfleetError says otherwise
// (its code and a DNS domain kept, as the actors read them); the message redacted, no cause kept.
function failure(err: unknown, prefix: string, secrets: readonly string[]): MetalfleetError {
  const message = redact(`${prefix}${errorMessage(err)}`, secrets);
  if (!(err instanceof MetalfleetError)) return new MetalfleetError('pluginError', message, true);
  const out = new MetalfleetError(err.code, message, err.retryable, err.retryAfterMs);
  const domain: unknown = (err as { domain?: unknown }).domain;
  return typeof domain === 'string' ? Object.assign(out, { domain }) : out;
}
