// Answers host commands on every node: one subscription per node on `<cluster>.cmd.*`, all nodes
// in one queue group, so each command is handled once, by whichever node NATS picks. Any node can
// answer because a command is only recorded, never acted on, here: the intent is written to the
// shared store and the reply goes out once that write is durable; the owner of the host's shard
// acts on it from its watch of the store. A shard changing hands therefore leaves no gap with
// nobody answering — there is nothing about ownership in this file.
//
// Before anything else the request guard decides whether the sender may ask at all (a signed
// request from an allow-listed operator key, src/security), and every request, taken or refused,
// is written to the audit stream.
import { z } from 'zod';
import { shardOf, errorMessage } from '../api/index.ts';
import { fail, ok, serve, subjects as defaultSubjects, type Reply, type Subjects } from '../bus/index.ts';
import { CommandKind, HostCommand, HostCommandType } from '../bus/messages/index.ts';
import type { Logger, ResourceStore, Transport } from '../ports/index.ts';
import { innerRequest, noAudit, trustedGuard, type AuditLog, type RequestGuard } from '../security/index.ts';
import { commandState, handleCommand } from './commands/index.ts';
import { commandKind } from './commands/handle-command.ts';
import { auditEntry, auditOutcome, auditUnread, claimed } from './commands/audit-entry.ts';
import { runOnce, type RequestLedger } from './request-ledger.ts';

/** The queue group every node's command server joins (one group per cluster subject prefix). */
export const COMMAND_QUEUE = 'mf-commands';

export interface CommandServerOptions {
  readonly transport: Transport;
  /**
   * The cluster's shared store (NATS KV or Kubernetes), every kind the node runs: any node's
   * write is every node's. A command's kind picks the objects it reaches.
   */
  readonly store: ResourceStore;
  readonly shardCount: number;
  readonly log: Logger;
  readonly subjects?: Subjects;
  /** Who may send commands. Default trusted (a private bus); startNode passes the node's posture. */
  readonly guard?: RequestGuard;
  /** Where each command's outcome is recorded; default nowhere. */
  readonly audit?: AuditLog;
  /** This node's name, in the audit records. */
  readonly node?: string;
  readonly now?: () => Date;
  /**
   * Request ids already taken, cluster-wide: a late copy of a retried command (its first attempt
   * held by a paused node) is answered as a repeat, not done again. Absent: decided on state alone.
   */
  readonly requests?: RequestLedger;
}

export interface CommandServer {
  /** Requests answered by the handler, refused unread (malformed), and failed (handler threw). */
  stats(): { served: number; rejected: number; failed: number };
  /** Stops taking commands and waits for those in hand to be answered. Idempotent. */
  close(): Promise<void>;
}

/** Starts the node's command server. Start it once the store is open; close it before the store. */
export function startCommandServer(options: CommandServerOptions): CommandServer {
  const subjects = options.subjects ?? defaultSubjects();
  const log = options.log.child({ component: 'commands' });
  const guard = options.guard ?? trustedGuard();
  const audit = options.audit ?? noAudit;
  const now = options.now ?? (() => new Date());
  const node = options.node ?? 'unknown';
  let rejected = 0;
  const service = serve(options.transport, subjects.commands, z.unknown(), async (payload, { subject, sender }) => {
    let admission;
    try {
      admission = await guard.admit(subject, payload, 'operator');
    } catch (error) {
      // The nonce ledger (a KV bucket) could not be reached: nothing was decided, try again.
      const reason = `cannot check the request now: ${errorMessage(error)}`;
      log.warn({ subject, err: reason }, 'command not checked');
      return fail('unavailable', reason, true);
    }
    const inner = admission.ok ? admission.request : innerRequest(payload);
    const facts = { node, action: 'command' as const, payload, caller: admission.caller, command: claimed(inner, 'type'), host: claimed(inner, 'host'), requestId: claimed(inner, 'requestId') };
    const vouched = admission.ok && admission.caller.kind === 'signed';
    // The kind the command is for, in its record: a BareMetalHost and a MaasMachine may share a
    // host name. As the request claims it until it is read (worked out only for such a record),
    // then as the node resolves it.
    let resolved: { kind: string | undefined } | null = null;
    const answer = async (reply: Reply<unknown>, outcome: 'applied' | 'alreadyRecorded' | 'refused' | 'failed'): Promise<Reply<unknown>> => {
      // Fields named one by one, not spread from facts: V8 makes a spread copy a slow
      // (dictionary) object, and building and reading it cost 7 us a command, on its hot path.
      const entry = auditEntry({
        node: facts.node, action: facts.action, payload: facts.payload, caller: facts.caller, command: facts.command, host: facts.host, requestId: facts.requestId,
        outcome, code: reply.ok ? undefined : reply.error.kind, reason: reply.ok ? undefined : reply.error.message, now: now(),
      });
      const kind = resolved ? resolved.kind : claimedKind(inner);
      if (kind !== undefined) entry.kind = kind;
      await auditOutcome(audit, entry, vouched, sender);
      return reply;
    };
    if (!admission.ok) {
      log.warn({ subject, host: facts.host, command: facts.command, caller: admission.caller, code: admission.error.code, err: admission.error.message }, 'command refused');
      return answer(fail(admission.error.code, admission.error.message, false), 'refused');
    }
    const parsed = HostCommand.safeParse(inner);
    if (!parsed.success) {
      rejected += 1;
      const issue = parsed.error.issues[0];
      const path = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(message)';
      return answer(fail('invalidMessage', `${subject}: invalid message at ${path}: ${issue?.message ?? 'does not match the schema'}`), 'refused');
    }
    const cmd = parsed.data;
    resolved = { kind: resolvedKind(cmd) };
    const home = shardOf(cmd.host, options.shardCount);
    // Clients publish per shard (README); one on the wrong shard's subject has computed its
    // shard with another shard count, which is a mistake worth telling rather than hiding.
    // The usual cause is `metalfleet host` without --shards against a cluster not at the default
    // 256: "publish on mf.cmd.N" alone told that operator nothing they could act on, so the
    // refusal names the cluster's shard count and the flag and variable that give it.
    if (subjects.commandShard(subject) !== home) {
      const count = options.shardCount;
      return answer(fail('invalid', `host ${cmd.host} belongs to shard ${home}; publish on ${subjects.command(home)} (this cluster has ${count} shards: a client that counts another number sends to the wrong shard; give the client --shards ${count} (metalfleet host, ui) or set METALFLEET_SHARDS=${count})`), 'refused');
    }
    const once = await runOnce(options.requests, cmd, () => handleCommand(options.store, cmd));
    if (!once.run) {
      if ('unchecked' in once) {
        const reason = `cannot check whether request ${cmd.requestId} was taken before: ${once.unchecked}`;
        log.warn({ host: cmd.host, shard: home, command: cmd.type, requestId: cmd.requestId, err: reason }, 'command not recorded');
        return answer(fail('unavailable', reason, true), 'failed');
      }
      if (once.prior.otherRequest) {
        // Another request under a taken id is no copy: answering it "already taken" (or with the
        // first one's refusal) told the sender done, or refused, for what it never asked.
        const fields = once.prior.otherRequest.join(', ');
        log.warn({ host: cmd.host, shard: home, command: cmd.type, requestId: cmd.requestId, differs: once.prior.otherRequest }, 'command refused: request id taken by another request');
        return answer(fail('invalid', `request ${cmd.requestId} (${cmd.type} ${cmd.host}) was taken by another request that differs in ${fields}: a request id names one request, and this is not a copy of it, so nothing was done; send a new request id for this one`, false), 'refused');
      }
      if (once.prior.pending) {
        // The first attempt is still being recorded (a slow store: why the client retried). Neither
        // "done" nor "refused" is known yet; the client's retry is answered once it is.
        const reason = `request ${cmd.requestId} (${cmd.type} ${cmd.host}) is still being recorded by the attempt that took it first; send it again (the same request id) to learn how it ended`;
        log.info({ host: cmd.host, shard: home, command: cmd.type, requestId: cmd.requestId }, 'command copy while its first attempt is pending');
        return answer(fail('unavailable', reason, true), 'failed');
      }
      if (once.prior.refused) {
        return answer(fail(once.prior.refused.code, `${once.prior.refused.message} (request ${cmd.requestId} was refused so before: a copy is answered the same; send a new request id to ask again)`, false), 'refused');
      }
      log.info({ host: cmd.host, shard: home, command: cmd.type, requestId: cmd.requestId, caller: admission.caller }, 'command repeated: request id already taken');
      // The host's state as it is now: '' read "(state none)" in `metalfleet host` for a provisioned host.
      return answer(ok({ host: cmd.host, command: cmd.type, applied: false, state: await commandState(options.store, cmd), message: `request ${cmd.requestId} (${cmd.type} ${cmd.host}) was already taken: this is a retry or a late copy of it, and nothing more was done` }), 'alreadyRecorded');
    }
    const outcome = once.outcome;
    if (outcome.ok) {
      log.info({ host: cmd.host, shard: home, command: cmd.type, requestId: cmd.requestId, applied: outcome.reply.applied, caller: admission.caller }, 'command recorded');
      return answer(ok(outcome.reply), outcome.reply.applied ? 'applied' : 'alreadyRecorded');
    }
    if (outcome.error.code === 'unavailable') {
      log.warn({ host: cmd.host, shard: home, command: cmd.type, requestId: cmd.requestId, err: outcome.error.message }, 'command not recorded');
    }
    return answer(fail(outcome.error.code, outcome.error.message, outcome.error.retryable), outcome.error.retryable ? 'failed' : 'refused');
  }, { queue: COMMAND_QUEUE, onUnread: (refusal) => auditUnread(audit, node, 'command', refusal, now()) });
  let closing: Promise<void> | null = null;
  return {
    stats: () => ({ served: service.stats.served - rejected, rejected: service.stats.rejected + rejected, failed: service.stats.failed }),
    close: () => (closing ??= service.drain().catch(() => undefined)),
  };
}

/**
 * The kind a validated command is for, as handleCommand decides it (the one it names, else the
 * default for its type); an unknown kind it names is refused, and recorded as named.
 */
function resolvedKind(cmd: HostCommand): string | undefined {
  const named = commandKind(cmd);
  return named.ok ? named.kind.kind : cmd.kind;
}

/**
 * The kind a request not (yet) validated is for: the kind it names, if it reads as a kind, else
 * the default for the command type it names; none when neither can be read. The sender's text
 * only where it passes the kind pattern, so no request can put anything else in the record.
 */
function claimedKind(request: unknown): string | undefined {
  if (typeof request !== 'object' || request === null) return undefined;
  if ((request as { kind?: unknown }).kind !== undefined) {
    const named = claimed(request, 'kind');
    return named !== null && CommandKind.safeParse(named).success ? named : undefined;
  }
  const type = HostCommandType.safeParse(claimed(request, 'type'));
  if (!type.success) return undefined;
  // commandKind reads only the type, the kind (none here) and the host (for its messages).
  const byType = commandKind({ type: type.data, host: claimed(request, 'host') ?? '' } as HostCommand);
  return byType.ok ? byType.kind.kind : undefined;
}
