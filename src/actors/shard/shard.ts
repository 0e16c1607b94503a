import type { BareMetalHost } from '../../api/index.ts';
import { hostKey } from '../../ports/index.ts';
import type { HostDeps, HostMsg, HostObserver, HostSnapshot } from '../host/index.ts';
import { hostBehavior } from '../host/index.ts';
import type { ActorRef, Behavior, Reply } from '../runtime/index.ts';
import { ask, spawn, stop, tell } from '../runtime/index.ts';

export type ShardMsg =
  | { type: 'upsert'; host: BareMetalHost }
  | { type: 'deleted'; key: string }
  | { type: 'gone'; key: string }
  | { type: 'hostRef'; key: string; reply: Reply<ActorRef<HostMsg> | null> }
  | { type: 'hosts'; reply: Reply<string[]> }
  // Hand-off: every host finishes its call in flight and stops issuing new ones.
  | { type: 'drain'; timeoutMs: number; reply: Reply<{ drained: number; stuck: string[] }> };

export interface ShardOptions {
  readonly shard: number;
  readonly deps: HostDeps;
  readonly supervision: { maxRestarts: number; windowMs: number; backoff: { initialMs: number; maxMs: number } };
  // Called once when a host's actor keeps crashing: record it on the host instead of looping hot.
  readonly onHostGaveUp: (key: string, error: unknown, restarts: number) => void;
}

interface ShardState {
  readonly hosts: Map<string, ActorRef<HostMsg>>;
  readonly deps: HostDeps;
}

// Supervises the host actors of one shard and spawns them on demand. A host's failure stays
// with that host: the shard only forgets it and records the reason.
export function shardBehavior(opts: ShardOptions): Behavior<ShardState, ShardMsg> {
  return {
    kind: 'shard',
    init: (ctx) => {
      const outer = opts.deps.observer;
      const self = ctx.self;
      // Hosts report their own end (finalizer removed) so the shard can stop and forget them.
      const observer: HostObserver = {
        stateChanged: (key, from, to, status) => outer.stateChanged(key, from, to, status),
        statusChanged: (key, status) => outer.statusChanged(key, status),
        warning: (key, reason, message) => outer.warning(key, reason, message),
        gone: (key) => {
          outer.gone(key);
          tell(self, { type: 'gone', key });
        },
      };
      return { hosts: new Map(), deps: { ...opts.deps, observer } };
    },
    receive: (s, msg, ctx) => {
      switch (msg.type) {
        case 'upsert': {
          const key = hostKey(msg.host);
          let ref = s.hosts.get(key);
          if (!ref) {
            const self = ctx.self;
            ref = spawn(ctx.self, actorName(key), hostBehavior(key, s.deps), {
              supervision: {
                ...opts.supervision,
                onGiveUp: (error, info) => {
                  tell(self, { type: 'gone', key });
                  opts.onHostGaveUp(key, error, info.restarts);
                },
              },
            });
            s.hosts.set(key, ref);
          }
          tell(ref, { type: 'observed', host: msg.host });
          return s;
        }
        case 'deleted': {
          const ref = s.hosts.get(msg.key);
          if (ref) stop(ref);
          s.hosts.delete(msg.key);
          return s;
        }
        case 'gone': {
          const ref = s.hosts.get(msg.key);
          if (ref) stop(ref);
          s.hosts.delete(msg.key);
          return s;
        }
        case 'hostRef':
          msg.reply(s.hosts.get(msg.key) ?? null);
          return s;
        case 'hosts':
          msg.reply([...s.hosts.keys()]);
          return s;
        case 'drain':
          return drainHosts(s, msg.timeoutMs).then((result) => {
            msg.reply(result);
            return s;
          });
      }
    },
    onStop: (s) => {
      s.hosts.clear();
    },
    describe: (s) => ({ shard: opts.shard, hosts: s.hosts.size }),
  };
}

// Hosts that do not settle in time (a backend call hanging) are reported: the caller decides
// whether to hand the shard over anyway (the backend's fence refuses the late call).
async function drainHosts(s: ShardState, timeoutMs: number): Promise<{ drained: number; stuck: string[] }> {
  const stuck: string[] = [];
  await Promise.all([...s.hosts].map(async ([key, ref]) => {
    try {
      await ask<HostMsg, void>(ref, (reply) => ({ type: 'drain', reply }), timeoutMs);
    } catch {
      stuck.push(key);
    }
  }));
  return { drained: s.hosts.size - stuck.length, stuck };
}

// Actor names are path segments: keep namespace and name readable, without the slash.
function actorName(key: string): string {
  return key.replace('/', '~');
}

export type { HostSnapshot };
