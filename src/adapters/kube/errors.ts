import { z } from 'zod';
import { StoreError } from '../../ports/index.ts';

// A failed API call, reduced to what may be shown: the call, the HTTP status, and the reason and
// message of the Status the server returned. The client's own ApiException text embeds the raw
// body and response headers; it is kept only as the cause, never printed.
export class KubeCallError extends Error {
  constructor(
    readonly call: string,
    /** null: no HTTP answer (connection refused or dropped, timeout, abort). */
    readonly status: number | null,
    readonly reason: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`${call}: ${detail}`, options);
    this.name = 'KubeCallError';
  }

  get conflict(): boolean {
    return this.status === 409;
  }

  get notFound(): boolean {
    return this.status === 404;
  }
}

const Status = z.looseObject({ reason: z.string().optional(), message: z.string().optional() });

// Status messages can quote a rejected value (422 Invalid); ours are statuses and metadata,
// never Secret data, but a bound keeps a huge one out of logs.
const MAX_DETAIL = 300;

function statusOf(body: unknown): z.infer<typeof Status> {
  let value: unknown = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return {};
    }
  }
  const parsed = Status.safeParse(value);
  return parsed.success ? parsed.data : {};
}

function field(error: unknown, name: string): unknown {
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>)[name] : undefined;
}

/** The HTTP status of a client error: ApiException.code, a watch's statusCode, or null. */
export function httpStatusOf(error: unknown): number | null {
  if (error instanceof KubeCallError) return error.status;
  for (const name of ['code', 'statusCode']) {
    const value = field(error, name);
    if (typeof value === 'number' && value >= 100 && value < 600) return value;
  }
  return null;
}

export function toKubeCallError(call: string, error: unknown): KubeCallError {
  if (error instanceof KubeCallError) return error;
  const status = httpStatusOf(error);
  if (status !== null) {
    const s = statusOf(field(error, 'body'));
    const reason = s.reason ?? (status === 409 ? 'Conflict' : status === 404 ? 'NotFound' : `HTTP ${status}`);
    const message = (s.message ?? '').slice(0, MAX_DETAIL);
    return new KubeCallError(call, status, reason, `${reason} (HTTP ${status})${message ? `: ${message}` : ''}`, { cause: error });
  }
  // node-fetch's FetchError carries the system code (ECONNREFUSED, ECONNRESET); AbortError its name.
  const code = field(error, 'code');
  const name = error instanceof Error ? error.name : typeof error;
  const what = typeof code === 'string' ? code : name;
  return new KubeCallError(call, null, what, `no answer from the API server (${what})`, { cause: error });
}

/**
 * Whether trying again later can succeed: no answer, conflicts, throttling and server errors
 * can; a missing object, a refused request (validation, RBAC, bad patch) cannot.
 */
export function retryableStatus(status: number | null): boolean {
  if (status === null) return true;
  return status === 409 || status === 429 || status === 410 || status >= 500;
}

/** A StoreError for `what` (the object and the operation), as the HostStore contract wants it. */
export function storeError(what: string, error: unknown): StoreError {
  if (error instanceof StoreError) return error;
  const failure = toKubeCallError(what, error);
  const detail = failure.message.startsWith(`${failure.call}: `) ? failure.message.slice(failure.call.length + 2) : failure.message;
  return new StoreError(`${what}: ${detail}`, retryableStatus(failure.status), { cause: error });
}
