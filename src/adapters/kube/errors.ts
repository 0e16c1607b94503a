import { z } from 'zod';
import { StoreError } from '../../ports/index.ts';
import type { Permission } from './kube-calls.ts';
import { MetalfleetError } from '../../api/index.ts';

// A failed API call, reduced to what may be shown: the call, the HTTP status, and the reason and
// message of the Status the server returned. The client's own ApiException text embeds the raw
// body and response headers; it is kept only as the cause, never printed.
// Retryable when the API server gave no answer, was overloaded (429) or failed (5xx).
export class KubeCallError extends MetalfleetError {
  constructor(
    readonly call: string,
    /** null: no HTTP answer (connection refused or dropped, timeout, abort). */
    readonly status: number | null,
    readonly reason: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super('kubeCall', `${call}: ${detail}`, status === null || status === 429 || status >= 500, undefined, options);
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

export function toKubeCallError(call: string, error: unknown, permission?: Permission): KubeCallError {
  if (error instanceof KubeCallError) return error;
  const status = httpStatusOf(error);
  if (status !== null) {
    const s = statusOf(field(error, 'body'));
    const reason = s.reason ?? REASON_BY_STATUS[status] ?? `HTTP ${status}`;
    const said = (s.message ?? '').slice(0, MAX_DETAIL);
    // A real 401 says only "Unauthorized": the hint says what to check.
    const message = said && said.toLowerCase() !== reason.toLowerCase() ? said : hintFor(status, permission) || said;
    return new KubeCallError(call, status, reason, `${reason} (HTTP ${status})${message ? `: ${message}` : ''}`, { cause: error });
  }
  const failure = connectionFailure(error);
  return new KubeCallError(call, null, failure.code, failure.detail, { cause: error });
}

const REASON_BY_STATUS: Readonly<Record<number, string>> = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 409: 'Conflict' };

// What to do when the server said no more than the code (a proxy, a bare 401 or 403).
function hintFor(status: number, permission: Permission | undefined): string {
  if (status === 401) return 'the API server did not accept the kubeconfig\'s credentials (a wrong or expired token or client certificate)';
  if (status === 403) {
    const what = permission ? `${permission.verb} ${permission.apiGroup === '' ? 'core' : permission.apiGroup}/${permission.resource}` : 'this';
    return `the kubeconfig's user may not ${what}: grant it in the ClusterRole (deploy/rbac/cluster-role.yaml)`;
  }
  return '';
}

// OpenSSL's verify codes and Node's own TLS errors: the server answered, but not as one we trust.
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|EPROTO$|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_|HOSTNAME_MISMATCH$|INVALID_CA$|PATH_LENGTH_EXCEEDED$)/;

/**
 * Why no HTTP answer came, in words a user can act on. node-fetch's FetchError carries the system
 * code and a message "request to URL failed, reason: …"; only the URL's origin is shown (the
 * path and query say nothing useful, and nothing in a kubeconfig's credentials is in them).
 */
function connectionFailure(error: unknown): { code: string; detail: string } {
  const raw = field(error, 'code');
  const code = typeof raw === 'string' ? raw : error instanceof Error ? error.name : typeof error;
  const message = error instanceof Error ? error.message : '';
  const reason = (/, reason: (.*)$/s.exec(message)?.[1] ?? '').split('\n')[0]?.trim().slice(0, MAX_DETAIL) ?? '';
  const origin = originOf(message);
  const at = origin ? ` at ${origin}` : '';
  if (TLS_CODE.test(code)) {
    const why = code === 'EPROTO' ? 'the TLS handshake failed (is it an HTTPS port?)' : reason || 'the certificate was not accepted';
    return { code, detail: `TLS: the API server${at} is not trusted: ${why} (${code}); check certificate-authority-data (or the server address) in the kubeconfig` };
  }
  switch (code) {
    case 'ECONNREFUSED': {
      const address = /ECONNREFUSED (\S+)/.exec(reason)?.[1] ?? origin;
      return { code, detail: `connection refused: nothing listens at ${address ?? 'the API server\'s address'} (ECONNREFUSED); is the API server running, and is the kubeconfig's server address right?` };
    }
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { code, detail: `the API server's host name${at ? ` in ${origin}` : ''} does not resolve (${code})` };
    case 'ECONNRESET':
    case 'EPIPE':
      return { code, detail: `the API server${at} closed the connection (${code})` };
    case 'ETIMEDOUT':
    case 'ESOCKETTIMEDOUT':
      return { code, detail: `the API server${at} did not answer in time (${code})` };
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return { code, detail: `the API server${at} cannot be reached from here (${code})` };
    case 'AbortError':
      return { code, detail: 'the request was aborted before the API server answered (AbortError)' };
    default:
      return { code, detail: `cannot reach the API server${at} (${code})${reason ? `: ${reason}` : ''}` };
  }
}

function originOf(message: string): string | null {
  const url = /request to (\S+) failed/.exec(message)?.[1];
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * Whether trying again later can succeed: no answer, conflicts, throttling and server errors
 * can; a missing object, a refused request (validation, RBAC, bad patch) cannot.
 */
export function retryableStatus(status: number | null): boolean {
  if (status === null) return true;
  return status === 409 || status === 429 || status === 410 || status >= 500;
}

/** A StoreError for `what` (the object and the operation), as the ResourceStore contract wants it. */
export function storeError(what: string, error: unknown): StoreError {
  if (error instanceof StoreError) return error;
  const failure = toKubeCallError(what, error);
  const detail = failure.message.startsWith(`${failure.call}: `) ? failure.message.slice(failure.call.length + 2) : failure.message;
  return new StoreError(`${what}: ${detail}`, retryableStatus(failure.status), { cause: error });
}
