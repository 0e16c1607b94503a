import { z } from 'zod';
import type { CallArgs, OpResult } from '../machines/bmh/index.ts';
import type { CapacityClaim, HostData, Provisioner } from '../ports/index.ts';
import { OPTIONAL_PROVISIONER_METHODS, PROVISIONER_METHODS } from './contract.ts';
import { errorMessage } from '../api/index.ts';

// Options whose values are credentials: never passed on in a message.
const SECRET_OPTION = /pass|secret|token|key|cred|auth|private/i;
const REDACTED = '[redacted]';

/** The values of a plugin's options that are credentials (by their key's name). */
export function secretOptionValues(options: Readonly<Record<string, string>>): string[] {
  const named = Object.entries(options).filter(([k, v]) => SECRET_OPTION.test(k) && v !== '').map(([, v]) => v);
  // A URL's password is a credential whatever its option is called (lab.url=http://admin:PW@pdu).
  return [...named, ...Object.values(options).flatMap(urlPassword)];
}

function urlPassword(value: string): string[] {
  if (!URL.canParse(value)) return [];
  const { password } = new URL(value);
  if (password === '') return [];
  try {
    return [password, decodeURIComponent(password)];
  } catch {
    return [password];
  }
}

/** `text` with every one of `secrets` in it replaced. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].filter((v) => v !== '').sort((a, b) => b.length - a.length)) out = out.split(s).join(REDACTED);
  return out;
}

const CapacityShape = z.object({ pool: z.string().min(1), exempt: z.boolean() });

const retryAfter = z.number().nonnegative().nullable().optional();
const OpResultShape = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('done'), provisionerId: z.string().optional(), poweredOn: z.boolean().optional(), deployed: z.boolean().optional(), busy: z.boolean().optional() }),
  z.object({ kind: z.literal('continuing'), afterMs: z.number().finite().nonnegative(), started: z.boolean().optional() }),
  z.object({ kind: z.literal('failed'), message: z.string(), retryAfterMs: retryAfter }),
  z.object({ kind: z.literal('transient'), message: z.string() }),
  z.object({ kind: z.literal('needsRegistration') }),
  z.object({ kind: z.literal('waitForSecret'), secret: z.string(), field: z.string(), message: z.string(), retryAfterMs: retryAfter }),
]);

// A plugin's own name for its Provisioner, read once and never allowed to throw.
function nameOf(made: Provisioner): string {
  try {
    return typeof made.name === 'string' && made.name !== '' ? made.name : 'unnamed';
  } catch {
    return 'unnamed';
  }
}

/** What withinTimeout answers for a call that did not settle in time. */
export const TIMED_OUT = Symbol('timed out');

/**
 * `call`'s answer, or TIMED_OUT when it does not settle within `timeoutMs`; a synchronous throw
 * rejects like an asynchronous one (never escapes to the caller's stack).
 */
export async function withinTimeout(call: () => unknown, timeoutMs: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => { timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs); });
  try {
    return await Promise.race([Promise.resolve().then(call), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const KINDS = new Set(['done', 'continuing', 'failed', 'transient', 'needsRegistration', 'waitForSecret']);

// What a plugin answered, for the message: its type or kind, and the first thing wrong; no value.
function describe(answer: unknown, error: z.ZodError): string {
  if (answer === null || typeof answer !== 'object') return answer === null ? 'null' : typeof answer === 'undefined' ? 'undefined' : `a ${typeof answer}`;
  const kind = (answer as Record<string, unknown>)['kind'];
  if (typeof kind !== 'string' || !KINDS.has(kind)) return typeof kind === 'string' ? `kind ${JSON.stringify(kind.slice(0, 40))}` : 'an object without a kind';
  const issue = error.issues[0];
  return `a "${kind}" result whose ${issue?.path.join('.') || 'shape'} is wrong (${issue?.message ?? 'invalid'})`;
}

/**
 * A plugin's Provisioner as the host actors get it: each call's answer is checked against the
 * OpResult shape (anything else is a failed call naming the plugin and the operation, never
 * retried: the plugin must change), a throw is the transient failure the contract makes it, as is
 * a call that does not answer within `timeoutMs`, and
 * no message passed on carries the host's password or a credential from the plugin's options.
 */
export function guardProvisioner(made: Provisioner, plugin: string, options: Readonly<Record<string, string>>, timeoutMs: number): Provisioner {
  const optionSecrets = secretOptionValues(options);
  const target = made as unknown as Record<string, unknown>;
  // capacity() is synchronous and the host actor calls it on every turn: a throw or a wrong shape
  // gives the pool the plugin last named (its slots stay in one pool), else one for the plugin,
  // never exempt from the bound.
  let lastPool = `plugin:${nameOf(made)}`;
  const claim = (host: HostData): CapacityClaim => {
    try {
      const answer: unknown = made.capacity(host);
      const parsed = CapacityShape.safeParse(answer);
      if (parsed.success) {
        lastPool = parsed.data.pool;
        return answer as CapacityClaim;
      }
    } catch {
      // The plugin's fault; the claim below keeps the host bounded.
    }
    return { pool: lastPool, exempt: false };
  };
  const call = (op: CallArgs['op']) => async (host: HostData, args: CallArgs): Promise<OpResult> => {
    const secrets = host.credentials?.password ? [...optionSecrets, host.credentials.password] : optionSecrets;
    let answer: unknown;
    const late = `provisioner plugin ${plugin}: ${op} did not answer within ${timeoutMs / 1000} s`;
    try {
      answer = await withinTimeout(() => (target[op] as (h: HostData, a: CallArgs) => unknown).call(made, host, args), timeoutMs);
    } catch (err) {
      return { kind: 'transient', message: redact(errorMessage(err), secrets) };
    }
    if (answer === TIMED_OUT) return { kind: 'transient', message: redact(late, secrets) };
    const parsed = OpResultShape.safeParse(answer);
    if (!parsed.success) {
      return { kind: 'failed', message: redact(`provisioner plugin ${plugin}: ${op} answered ${describe(answer, parsed.error)}, not an OpResult (the plugin must be fixed)`, secrets), retryAfterMs: null };
    }
    const result = answer as OpResult;
    if (result.kind === 'failed' || result.kind === 'transient' || result.kind === 'waitForSecret') {
      const message = redact(result.message, secrets);
      return message === result.message ? result : { ...result, message };
    }
    return result;
  };
  const guarded: Record<string, unknown> = {
    get name() { return made.name; },
    capacity: (host: HostData) => claim(host),
  };
  for (const m of PROVISIONER_METHODS) if (m !== 'capacity') guarded[m] = call(m);
  for (const m of OPTIONAL_PROVISIONER_METHODS) if (typeof target[m] === 'function') guarded[m] = call(m);
  for (const m of ['apiVersions', 'requests', 'close'] as const) {
    const f = target[m];
    if (typeof f === 'function') guarded[m] = (...a: unknown[]) => (f as (...x: unknown[]) => unknown).apply(made, a);
  }
  return guarded as unknown as Provisioner;
}
