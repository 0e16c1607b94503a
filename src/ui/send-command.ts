// A command from the page takes the path `metalfleet host` takes: sendCommand to the owner of the
// host's shard, signed when the UI was given a signing key.
import { RemoteError } from '../bus/index.ts';
import { sendCommand } from '../cluster/command-client.ts';
import { BusError, type Transport } from '../ports/index.ts';
import type { SigningKey } from '../security/index.ts';
import { UI_ACTIONS, type CommandRequest } from './command-gate.ts';

export type CommandOutcome =
  | { readonly ok: true; readonly applied: boolean; readonly message: string; readonly state: string }
  | { readonly ok: false; readonly status: RefusalStatus; readonly reason: string; readonly retryable: boolean };

type RefusalStatus = 400 | 403 | 404 | 409 | 422 | 503;

// The node's refusal codes (HOST_COMMAND_ERROR_CODES) as HTTP says them, so a caller can tell a
// typo (404) or a command the host never takes (422) from one that fits later (409) or a node that
// will take it once it can (503). Any other code the node may send is a conflict, as before.
const REFUSAL_STATUS: Readonly<Record<string, RefusalStatus>> = {
  notFound: 404,
  invalid: 422,
  conflict: 409,
  unauthorized: 403,
  forbidden: 403,
};

export interface CommandPath {
  readonly shardCount: number;
  readonly signingKey?: SigningKey | undefined;
  /** All attempts of one command. */
  readonly deadlineMs: number;
}

export async function sendHostCommand(transport: Transport, host: string, request: CommandRequest, path: CommandPath): Promise<CommandOutcome> {
  try {
    const reply = await sendCommand(transport, {
      type: UI_ACTIONS[request.action],
      host,
      ...(request.kind !== undefined ? { kind: request.kind } : {}),
      reason: request.reason ?? 'from the metalfleet dashboard',
    }, { shardCount: path.shardCount, timeoutMs: Math.min(2_000, path.deadlineMs), deadlineMs: path.deadlineMs, signingKey: path.signingKey });
    return { ok: true, applied: reply.applied, message: reply.message, state: reply.state };
  } catch (err) {
    if (err instanceof RemoteError) {
      const hint = err.kind === 'unauthorized' && !path.signingKey ? ' (the dashboard signs nothing: start it with --signing-key, or METALFLEET_SIGNING_KEY_FILE)' : '';
      return { ok: false, status: err.retryable ? 503 : (REFUSAL_STATUS[err.kind] ?? 409), reason: `${host}: ${err.kind}: ${err.message}${hint}`, retryable: err.retryable };
    }
    if (err instanceof BusError) return { ok: false, status: 503, reason: `${host}: no node answered the command within ${path.deadlineMs / 1_000} s (${err.kind}); is a node running?`, retryable: true };
    if (err instanceof Error && err.name === 'ZodError') return { ok: false, status: 400, reason: `${host}: not a host command: ${err.message}`, retryable: false };
    throw err;
  }
}
