import { randomUUID } from 'node:crypto';
import { shardOf } from '../api/index.ts';
import { subjects as defaultSubjects, type Subjects } from '../bus/index.ts';
import { HostCommand, HostCommandReply, type HostCommandInput } from '../bus/messages/index.ts';
import type { Transport } from '../ports/index.ts';
import type { SigningKey } from '../security/index.ts';
import { signedCall } from './commands/signed-call.ts';

export interface SendCommandOptions {
  readonly shardCount: number;
  /** One attempt. */
  readonly timeoutMs?: number;
  /**
   * All attempts. Any node answers any shard, so a retry is needed only when no node is up yet
   * (no responders), an attempt timed out, or the store was briefly unavailable (retryable).
   */
  readonly deadlineMs?: number;
  readonly subjects?: Subjects;
  /** Signs each attempt (nodes with --authorized-keys take only signed commands); absent: unsigned. */
  readonly signingKey?: SigningKey | undefined;
}

/**
 * Sends a host command on its shard's subject and returns the reply of the node that recorded it
 * (any node: the intent is durable in the store when the reply comes). Throws RemoteError (code
 * and message from the node) or BusError (nobody answered in time).
 */
export async function sendCommand(transport: Transport, input: HostCommandInput, options: SendCommandOptions): Promise<HostCommandReply> {
  // Validate here too, so a caller's mistake is reported before anything is sent. Every attempt
  // carries one request id (one is made when the caller gave none): an attempt that timed out may
  // still reach a node later, and the id is how nodes know it for a copy (cluster/request-ledger).
  const cmd = HostCommand.parse(input.requestId === undefined ? { ...input, requestId: `mf-${randomUUID()}` } : input);
  const subject = (options.subjects ?? defaultSubjects()).command(shardOf(cmd.host, options.shardCount));
  return signedCall(transport, subject, cmd, HostCommandReply, {
    timeoutMs: options.timeoutMs ?? 2_000,
    deadlineMs: options.deadlineMs ?? 30_000,
    signingKey: options.signingKey,
  });
}
