// A failed Ironic call. The message names the call and says what Ironic said; it never holds
// credentials, driver_info secrets or configdrive contents (see redact.ts). `cause` keeps the
// underlying error for logs, redacted the same way.

import { MetalfleetError } from '../../../api/index.ts';

export type IronicErrorCode =
  | 'not-found' // 404 naming a missing node, port or record
  | 'conflict' // 409 other than a node lock: duplicate name or MAC, node associated, ...
  | 'locked' // 409 "Node ... is locked by host ...": still locked after the client's retries
  | 'bad-request' // 400 and other 4xx: invalid state for the action, schema errors; 404 for a driver lacking the interface
  | 'unavailable' // 503 and other 5xx; 404 "No valid host was found" (no conductor for the node's driver)
  | 'timeout' // no complete answer within timeoutMs
  | 'network' // connection refused, reset, DNS, TLS
  | 'withheld' // the caller's leave check (its shard lease) said no once a connection was ready: nothing sent
  | 'version' // microversion negotiation refused, or Ironic's 406 for a version outside its range
  | 'invalid-response' // not JSON, or JSON of an unexpected shape
  | 'auth' // 401, 403
  | 'unsupported'; // a field or call the negotiated microversion lacks: refused before sending, or by Ironic's 406 NotAcceptable

export interface IronicErrorDetails {
  readonly code: IronicErrorCode;
  /** HTTP status, null when no answer came (network, timeout). */
  readonly status: number | null;
  readonly retryable: boolean;
  /** The call as sent, e.g. `PUT /v1/nodes/ns~name/states/provision`. */
  readonly call: string;
  /** The call's route, e.g. `PUT /v1/nodes/{node}/states/provision`. */
  readonly route: string;
  /** Ironic's own message (faultstring / description), redacted; null when there was none. */
  readonly ironicMessage: string | null;
  /** Ironic's `Openstack-Request-Id`, to find the call in Ironic's log. */
  readonly requestId: string | null;
  /** How many requests were sent for this call (more than 1 after lock retries). */
  readonly attempts: number;
}

export class IronicError extends MetalfleetError implements IronicErrorDetails {
  declare readonly code: IronicErrorCode;
  readonly status: number | null;
  readonly call: string;
  readonly route: string;
  readonly ironicMessage: string | null;
  readonly requestId: string | null;
  readonly attempts: number;

  constructor(message: string, details: IronicErrorDetails, options?: ErrorOptions) {
    super(details.code, message, details.retryable, undefined, options);
    this.name = 'IronicError';
    this.status = details.status;
    this.call = details.call;
    this.route = details.route;
    this.ironicMessage = details.ironicMessage;
    this.requestId = details.requestId;
    this.attempts = details.attempts;
  }
}

// Ironic's NodeLocked text: "Node <uuid> is locked by host <host>, please retry after the
// current operation is completed."
const LOCKED = /\bis locked by host\b|\blocked\b/i;

// Ironic's 404s that are not about a missing resource (common/exception.py, both NotFound): no
// conductor registered for the node's driver (NoValidHost: a conductor restarting, a hardware
// type not enabled; the API routes power, provision, validate and RAID calls first), and a driver
// without the interface (UnsupportedDriverExtension, 404 from PUT states/raid).
const NO_CONDUCTOR = /^No valid host was found\b/;
const UNSUPPORTED_EXTENSION = /^Driver \S+ does not support \S+ \(disabled or not implemented\)/;

/** The error code and retryability of an HTTP answer that is not a success. */
export function classifyStatus(status: number, ironicMessage: string | null): { code: IronicErrorCode; retryable: boolean } {
  if (status === 409 && ironicMessage !== null && LOCKED.test(ironicMessage)) return { code: 'locked', retryable: true };
  if (status === 409) return { code: 'conflict', retryable: false };
  if (status === 404 && ironicMessage !== null && NO_CONDUCTOR.test(ironicMessage)) return { code: 'unavailable', retryable: true };
  if (status === 404 && ironicMessage !== null && UNSUPPORTED_EXTENSION.test(ironicMessage)) return { code: 'bad-request', retryable: false };
  if (status === 404) return { code: 'not-found', retryable: false };
  if (status === 401 || status === 403) return { code: 'auth', retryable: false };
  if (status === 406) return { code: 'version', retryable: false };
  if (status >= 500) return { code: 'unavailable', retryable: true };
  return { code: 'bad-request', retryable: false };
}
