// Answers host commands on every node: one subscription per node on `<cluster>.cmd.*`, all nodes
// in one queue group, so each command is handled once, by whichever node NATS picks. Any node can
// answer because a command is only recorded, never acted on, here: the intent is written to the
// shared store and the reply goes out once that write is durable; the owner of the host's shard
// acts on it from its watch of the store. A shard changing hands therefore leaves no gap with
// nobody answering — there is nothing about ownership in this file.
import { shardOf } from '../api/index.ts';
import { fail, ok, serve, subjects as defaultSubjects, type Subjects } from '../bus/index.ts';
import { HostCommand } from '../bus/messages/index.ts';
import type { HostStore, Logger, ObjectStore, Transport } from '../ports/index.ts';
import { handleCommand } from './commands/index.ts';

/** The queue group every node's command server joins (one group per cluster subject prefix). */
export const COMMAND_QUEUE = 'mf-commands';

export interface CommandServerOptions {
  readonly transport: Transport;
  /** The cluster's shared host store (NATS KV or Kubernetes): any node's write is every node's. */
  readonly store: HostStore;
  /** The cluster's shared object store, on nodes that run MAAS: commands on MaasMachines. */
  readonly objects?: ObjectStore | undefined;
  readonly shardCount: number;
  readonly log: Logger;
  readonly subjects?: Subjects;
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
  const service = serve(options.transport, subjects.commands, HostCommand, async (cmd, { subject }) => {
    const home = shardOf(cmd.host, options.shardCount);
    // Clients publish per shard (README); one on the wrong shard's subject has computed its
    // shard with another shard count, which is a mistake worth telling rather than hiding.
    if (subjects.commandShard(subject) !== home) {
      return fail('invalid', `host ${cmd.host} belongs to shard ${home}; publish on ${subjects.command(home)}`);
    }
    const outcome = await handleCommand(options.store, cmd, options.objects);
    if (outcome.ok) {
      log.info({ host: cmd.host, shard: home, command: cmd.type, requestId: cmd.requestId, applied: outcome.reply.applied }, 'command recorded');
      return ok(outcome.reply);
    }
    if (outcome.error.code === 'unavailable') {
      log.warn({ host: cmd.host, shard: home, command: cmd.type, requestId: cmd.requestId, err: outcome.error.message }, 'command not recorded');
    }
    return fail(outcome.error.code, outcome.error.message, outcome.error.retryable);
  }, { queue: COMMAND_QUEUE });
  let closing: Promise<void> | null = null;
  return {
    stats: () => ({ served: service.stats.served, rejected: service.stats.rejected, failed: service.stats.failed }),
    close: () => (closing ??= service.drain().catch(() => undefined)),
  };
}
