import type { z } from 'zod';
import { MaasError } from './errors.ts';
import type { MaasErrorCode } from './errors.ts';
import type { FormPairs } from './form.ts';
import { encodeForm } from './form.ts';

// One MAAS call as the client describes it, the error every failure of it becomes, and the
// reading of its answer.

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Call {
  readonly method: Method;
  /** Under /api/2.0, e.g. /machines/abc123/. */
  readonly path: string;
  /** The route for stats and errors, e.g. `POST /machines/{id}/ op=deploy`. */
  readonly route: string;
  readonly op?: string;
  readonly query?: FormPairs;
  /** The form body (POST, PUT). */
  readonly form?: FormPairs;
  /** Strings of this call that must not appear in errors (user data). */
  readonly secrets?: readonly string[];
  readonly isAllocate?: boolean;
}

export interface Answer {
  readonly status: number;
  readonly json: unknown;
}

/** Sends a call and answers its parsed 2xx, or throws a MaasError. */
export type Send = (c: Call) => Promise<Answer>;

function callText(c: Call): string {
  const query = c.query !== undefined && c.query.length > 0 ? `?${encodeForm(c.query)}` : '';
  return `${c.method} ${c.path}${query}${c.op !== undefined ? ` op=${c.op}` : ''}`;
}

export function fail(c: Call, redact: (s: string) => string, code: MaasErrorCode, retryable: boolean, message: string, extra: { status?: number | null; maasMessage?: string; formErrors?: Record<string, string[]>; attempts?: number; cause?: unknown } = {}): MaasError {
  return new MaasError(redact(`${callText(c)}: ${message}`), {
    code,
    retryable,
    status: extra.status ?? null,
    maasMessage: extra.maasMessage ?? '',
    ...(extra.formErrors !== undefined ? { formErrors: extra.formErrors } : {}),
    call: redact(callText(c)),
    route: c.route,
    attempts: extra.attempts ?? 1,
  }, extra.cause === undefined ? undefined : { cause: extra.cause });
}

/** A call refused before anything was sent: bad input from our side. */
export function invalid(c: Call, message: string): MaasError {
  return fail(c, (s) => s, 'bad-request', false, message, { attempts: 0 });
}

export function parse<S extends z.ZodType>(c: Call, schema: S, a: Answer): z.infer<S> {
  const r = schema.safeParse(a.json);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join('.') : '(body)';
  throw fail(c, (s) => s, 'invalid-response', false, `MAAS's answer (HTTP ${a.status}) has an unexpected shape at ${where}: ${issue?.message ?? 'invalid'}`, {
    status: a.status,
    cause: r.error,
  });
}

export async function orNullOn404<T>(fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof MaasError && err.code === 'not-found') return null;
    throw err;
  }
}
