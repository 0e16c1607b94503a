// Answers host commands for the shards this node owns: one subscription per owned shard on
// `<cluster>.cmd.<shard>`, opened when the shard's actors start and drained when they stop, so a
// command never reaches a node that no longer owns its host (no responders: the caller retries).
import { shardOf } from '../actors/shard/index.ts';
import type { RpcService } from '../bus/index.ts';
import { fail, ok, serve, subjects as defaultSubjects, type Subjects } from '../bus/index.ts';
import { HostCommand } from '../bus/messages/index.ts';
import type { HostStore, Logger, Transport } from '../ports/index.ts';
import { handleCommand } from './commands/index.ts';

export interface CommandServerOptions {
  readonly transport: Transport;
  readonly store: HostStore;
  readonly shardCount: number;
  readonly owns: (key: string) => boolean;
  readonly log: Logger;
  readonly subjects?: Subjects;
}

export interface CommandServer {
  open(shard: number): void;
  close(shard: number): void;
  stats(): { served: number; rejected: number; failed: number };
  closeAll(): Promise<void>;
}

export function createCommandServer(options: CommandServerOptions): CommandServer {
  const subjects = options.subjects ?? defaultSubjects();
  const services = new Map<number, RpcService>();
  const totals = { served: 0, rejected: 0, failed: 0 };
  const retire = (svc: RpcService): void => {
    totals.served += svc.stats.served;
    totals.rejected += svc.stats.rejected;
    totals.failed += svc.stats.failed;
    void svc.drain().catch(() => undefined);
  };
  return {
    open(shard) {
      if (services.has(shard)) return;
      services.set(shard, serve(options.transport, subjects.command(shard), HostCommand, async (cmd) => {
        const home = shardOf(cmd.host, options.shardCount);
        if (home !== shard) return fail('invalid', `host ${cmd.host} belongs to shard ${home}; publish on ${subjects.command(home)}`);
        // Between losing a shard and closing this subscription: tell the caller to try again.
        if (!options.owns(cmd.host)) return fail('notOwner', `shard ${shard} is moving to another node; retry`, true);
        const outcome = await handleCommand(options.store, cmd);
        if (outcome.ok) {
          options.log.info({ host: cmd.host, command: cmd.type, requestId: cmd.requestId, applied: outcome.reply.applied }, 'command applied');
          return ok(outcome.reply);
        }
        return fail(outcome.error.code, outcome.error.message, outcome.error.retryable);
      }));
    },
    close(shard) {
      const svc = services.get(shard);
      if (!svc) return;
      services.delete(shard);
      retire(svc);
    },
    stats() {
      const out = { ...totals };
      for (const svc of services.values()) {
        out.served += svc.stats.served;
        out.rejected += svc.stats.rejected;
        out.failed += svc.stats.failed;
      }
      return out;
    },
    async closeAll() {
      const all = [...services.values()];
      services.clear();
      await Promise.all(all.map((s) => s.drain().catch(() => undefined)));
    },
  };
}
