// A failed MAAS call. The message names the call and says what MAAS said; it never holds a part
// of the API key or the user data (see redact.ts). `cause` keeps the underlying error for logs,
// redacted the same way.

import { MetalfleetError } from '../../../api/index.ts';

export type MaasErrorCode =
  | 'no-match' // 409 on allocate: no Ready machine matches the constraints
  | 'conflict' // other 409: the machine's state does not allow the operation (on allocate: the machine picked broke meanwhile, retryable)
  | 'not-found' // 404: no such machine, DNS resource or domain
  | 'forbidden' // 403: the key's user may not do this (admin-only calls, another user's machine)
  | 'unauthorized' // 401: MAAS did not accept the API key or its signature
  | 'bad-request' // 400 and other 4xx: form errors, unknown tag/zone/pool, bad series
  | 'unavailable' // 503 and other 5xx
  | 'timeout' // no complete answer within timeoutMs
  | 'network' // connection refused, reset, DNS, TLS
  | 'withheld' // the caller's leave check (its shard lease) said no once a connection was ready: nothing sent
  | 'invalid-response'; // not JSON, or JSON of an unexpected shape

export interface MaasErrorDetails {
  readonly code: MaasErrorCode;
  /** HTTP status; null when no answer came (network, timeout) or the call was refused before sending. */
  readonly status: number | null;
  readonly retryable: boolean;
  /** MAAS's own text, redacted; '' when it said nothing useful. */
  readonly maasMessage: string;
  /** 400 answers with a JSON body: field name to messages, as MAAS's forms report them. */
  readonly formErrors?: Record<string, string[]>;
  /** The call as sent, e.g. `POST /machines/abc123/ op=deploy` (path under /api/2.0). */
  readonly call: string;
  /** The call's route, e.g. `POST /machines/{id}/ op=deploy`; the key of `stats.byRoute`. */
  readonly route: string;
  /** Requests sent for this call (more than 1 after retries). */
  readonly attempts: number;
}

export class MaasError extends MetalfleetError implements MaasErrorDetails {
  declare readonly code: MaasErrorCode;
  readonly status: number | null;
  readonly maasMessage: string;
  declare readonly formErrors?: Record<string, string[]>;
  readonly call: string;
  readonly route: string;
  readonly attempts: number;

  constructor(message: string, details: MaasErrorDetails, options?: ErrorOptions) {
    super(details.code, message, details.retryable, undefined, options);
    this.name = 'MaasError';
    this.status = details.status;
    this.maasMessage = details.maasMessage;
    if (details.formErrors !== undefined) this.formErrors = details.formErrors;
    this.call = details.call;
    this.route = details.route;
    this.attempts = details.attempts;
  }
}

/** The code and retryability of an HTTP answer that is not a success. */
export function classifyStatus(status: number, isAllocate: boolean, maasMessage = ''): { code: MaasErrorCode; retryable: boolean } {
  // MAAS answers 409 to allocate when no machine matches (AllocationFailed), or when the machine it
  // picked turned Broken before it could be acquired ("Invalid transition: Broken -> Allocated.",
  // CAPMAAS's ErrBrokenMachine): a race the next allocate does not meet, as it picks another. To
  // every other call a 409 means the machine is in the wrong state for it.
  if (status === 409 && isAllocate && /Invalid transition/i.test(maasMessage)) return { code: 'conflict', retryable: true };
  if (status === 409) return { code: isAllocate ? 'no-match' : 'conflict', retryable: false };
  if (status === 404) return { code: 'not-found', retryable: false };
  if (status === 403) return { code: 'forbidden', retryable: false };
  if (status === 401) return { code: 'unauthorized', retryable: false };
  if (status >= 500) return { code: 'unavailable', retryable: true };
  return { code: 'bad-request', retryable: false };
}

/**
 * What the user should do about an error of this code, appended to the message. `keySource` names
 * where the API key came from (MAAS_API_KEY, --maas-key, --maas-key-file FILE), never the key.
 */
export function hintFor(code: MaasErrorCode, keySource = 'MAAS_API_KEY'): string {
  switch (code) {
    case 'unauthorized':
      return ` (MAAS did not accept the API key or its signature: check ${keySource}, consumer_key:token_key:token_secret)`;
    case 'forbidden':
      return ' (the API key\'s user may not do this; some calls, like setting swap_size or writing DNS, need a MAAS admin)';
    case 'no-match':
      return ' (no Ready machine matches; free one, or relax cpu, memory, zone, pool or tags)';
    default:
      return '';
  }
}
