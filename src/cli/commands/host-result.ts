import type { HostCommand, HostCommandReply } from '../../bus/messages/index.ts';

// What `metalfleet host --json` / `-o yaml` prints for one host: the record behind its text line.
// Every field is always there (null when it does not apply), so `jq '.hosts[] | select(.error)'`
// needs no test for a missing key.

/** `applied`: the intent was recorded now; `unchanged`: it already was (a repeat); `failed`: see `error`. */
export type HostOutcome = 'applied' | 'unchanged' | 'failed';

export interface HostResult {
  /** NAMESPACE/NAME. */
  readonly host: string;
  /** The kind named (argument or --kind); null when the node chose (a BareMetalHost, or a MaasMachine for release). */
  readonly kind: string | null;
  /** As typed: power-on, release... */
  readonly action: string;
  /** The id the command was sent with: giving it again retries without doing the command twice. */
  readonly requestId: string;
  readonly outcome: HostOutcome;
  readonly applied: boolean;
  /** The host's state when the node answered (a MaasMachine: its MAAS state); null when it has none or nothing answered. */
  readonly state: string | null;
  /** The node's words. */
  readonly message: string | null;
  readonly error: HostResultError | null;
}

export interface HostResultError {
  /** The node's error code (notFound, invalid, conflict, unavailable, unauthorized, forbidden) or the bus's (timeout, noResponders...). */
  readonly type: string;
  readonly message: string;
  /** Whether the same command (same requestId) may succeed later unchanged. */
  readonly retryable: boolean;
  /** What to check, when there is advice; null otherwise. */
  readonly hint: string | null;
}

type Sent = Pick<HostCommand, 'host' | 'kind'> & { readonly requestId: string };

export function answered(cmd: Sent, action: string, reply: HostCommandReply): HostResult {
  return {
    host: cmd.host, kind: cmd.kind ?? null, action, requestId: cmd.requestId,
    outcome: reply.applied ? 'applied' : 'unchanged', applied: reply.applied,
    state: reply.state === '' ? null : reply.state, message: reply.message, error: null,
  };
}

export function failed(cmd: Sent, action: string, error: HostResultError): HostResult {
  return {
    host: cmd.host, kind: cmd.kind ?? null, action, requestId: cmd.requestId,
    outcome: 'failed', applied: false, state: null, message: null,
    error: { type: error.type, message: error.message, retryable: error.retryable, hint: error.hint },
  };
}
