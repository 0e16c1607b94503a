import type { RawResponse } from '../../http/index.ts';
import { IronicError } from './errors.ts';
import type { IronicErrorCode } from './errors.ts';

// One Ironic call as the client describes it, and the error every failure of it becomes.

export interface Call {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path and query under the endpoint, e.g. /v1/nodes/ns~a/states/provision. */
  readonly path: string;
  /** The route for stats and errors, e.g. PUT /v1/nodes/{node}/states/provision. */
  readonly route: string;
  readonly body?: unknown;
  /** Discovery calls go out before a version is known, and without one. */
  readonly unversioned?: boolean;
}

export interface Answer {
  readonly status: number;
  readonly json: unknown;
  readonly raw: RawResponse;
}

/** Sends a call and answers its parsed 2xx, or throws an IronicError. */
export type Send = (c: Call) => Promise<Answer>;

function callText(c: Call): string {
  return `${c.method} ${c.path}`;
}

export function fail(c: Call, code: IronicErrorCode, retryable: boolean, message: string, extra: { status?: number | null; ironicMessage?: string | null; requestId?: string | null; attempts?: number; cause?: unknown } = {}): IronicError {
  return new IronicError(`${callText(c)}: ${message}`, {
    code,
    retryable,
    status: extra.status ?? null,
    call: callText(c),
    route: c.route,
    ironicMessage: extra.ironicMessage ?? null,
    requestId: extra.requestId ?? null,
    attempts: extra.attempts ?? 1,
  }, extra.cause === undefined ? undefined : { cause: extra.cause });
}

export function header(raw: RawResponse | undefined, name: string): string | null {
  const v = raw?.headers[name];
  return typeof v === 'string' ? v : null;
}

export function seg(ref: string): string {
  if (ref === '') throw new Error('ironic client: empty node or port reference');
  return encodeURIComponent(ref);
}
