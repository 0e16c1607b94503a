import { BMH_KIND } from '../../api/index.ts';
import type { HostCompanionKind, ResourceEvent } from '../../ports/index.ts';
import { BMH_KIND_DEFINITION } from '../../machines/bmh/kind.ts';
import { companionsOf } from '../../machines/kinds.ts';
import type { ActorRef } from '../runtime/index.ts';
import { tell } from '../runtime/index.ts';
import type { KindActors, KindRouter, ShardBinding } from '../shard/index.ts';
import { releaseGone } from '../capacity/index.ts';
import type { MachineChanges } from '../machine/index.ts';
import type { HostDeps } from './host.ts';
import { hostBehavior } from './host.ts';
import { releaseGoneHolders } from './gone-grants.ts';
import type { HostMsg } from './messages.ts';
import { COMPANIONS_CHANGED } from './messages.ts';

/** A BareMetalHost's change in the one store, or a change of one of its companions that wakes it. */
export type HostEvent = ResourceEvent<'BareMetalHost' | HostCompanionKind>;

// The companions whose changes wake their host (a user's settings, updates and policy), as their
// kind.ts declare; the others (HardwareData, FirmwareSchema) are the host actor's own writes.
const WAKING = companionsOf(BMH_KIND).filter((c) => c.wakesHost);
const WAKING_KINDS = WAKING.map((c) => c.kind as HostCompanionKind);

/** A BareMetalHost binding's router in one shard: the host actors, found by `namespace/name`. */
export interface HostRouter extends KindRouter<HostEvent> {
  ref(key: string): ActorRef<HostMsg> | undefined;
}

export interface HostBindingDeps extends Omit<HostDeps, 'fence' | 'leaseHeld' | 'changes' | 'ended'> {
  /** The node's change stream: each shard's host actors report there. */
  readonly changes: MachineChanges;
  /** A host's actor kept crashing: record it on the host (see node/mark-crashed.ts). */
  gaveUp(key: string, error: unknown, restarts: number): void;
}

// BareMetalHosts as a shard hosts them: one actor per host, sharded by `namespace/name`, fed the
// host the store event carries (its first step needs no read).
export function hostBinding(deps: HostBindingDeps): ShardBinding<HostEvent, HostRouter> {
  // As each kind declares it (namespace/name, a companion its host's): the key a deletion
  // carries is that too.
  const shardKeyOf = (event: HostEvent): string => {
    if (event.type !== 'upsert') return event.key;
    const companion = WAKING.find((c) => c.kind === event.kind);
    return (companion ?? BMH_KIND_DEFINITION).shardKey(event.object);
  };
  return {
    name: 'host', // as BareMetalHost's kind.ts names it
    open(scope) {
      let actors: KindActors<HostMsg> | null = null;
      // Every change goes to the node's stream; a host's end (finalizer removed) also lets the
      // shard stop and forget its actor.
      const hostDeps: HostDeps = {
        ...deps, fence: scope.fence, ...(scope.leaseHeld ? { leaseHeld: scope.leaseHeld } : {}),
        // Every line of the shard's hosts says which tenure wrote it: after a failover or a stale
        // fence, the old and the new owner's lines of one host differ by epoch.
        log: deps.log.child({ shard: scope.shard, epoch: scope.fence.epoch }),
        changes: deps.changes.sink(scope.shard),
        ended: (key) => actors?.gone(key),
      };
      const hosts = scope.actors({
        kind: BMH_KIND,
        prefix: '',
        behavior: (key) => hostBehavior(key, hostDeps),
        drainable: (ref) => ref,
        gaveUp: (key, error, restarts) => deps.gaveUp(key, error, restarts),
      });
      actors = hosts;
      return {
        event(event, wakes) {
          if (event.kind !== BMH_KIND) {
            // A companion's spec or its deletion (its status is the host actor's own write):
            // the hosts it belongs to, as the shard's dependents index answers, read it again.
            if (event.type === 'upsert' && event.change !== 'spec') return;
            for (const key of wakes.get(BMH_KIND) ?? []) {
              const ref = hosts.get(key);
              if (ref) tell(ref, COMPANIONS_CHANGED);
            }
            return;
          }
          if (event.type === 'upsert') tell(hosts.ensure(event.key), { type: 'observed', host: event.object });
          else {
            hosts.stop(event.key);
            // Gone: whatever grant is still in its name (its finalizer removed by hand, so it never
            // released; or left by an earlier owner it never read) goes back now, not at its TTL.
            releaseGone(deps.broker, event.key);
          }
        },
        ref: (key) => hosts.get(key),
      };
    },
    listed(found, acquired) {
      // The hosts only: a deleted host's companions may outlive it in the store.
      const present = new Set(found.flatMap(([, event]) => (event.kind === BMH_KIND ? [event.key] : [])));
      releaseGoneHolders(deps, present, acquired).catch((err: unknown) => {
        deps.log.warn({ err: String(err) }, 'capacity held for deleted hosts not settled; it lapses at its TTL');
      });
    },
    // The hosts and the companions that wake them, each by the key it is sharded by.
    indexed: (event) => ({ kind: event.kind, key: event.key, object: event.type === 'deleted' ? null : event.object }),
    // Only this node's hosts: a store may then leave the others' changes unparsed. A companion
    // is sharded with its host (same key), so the same test holds for it.
    watch: (emit, owns) => deps.store.watch<'BareMetalHost' | HostCompanionKind>((event) => emit(shardKeyOf(event), event), { kinds: [BMH_KIND, ...WAKING_KINDS], keys: (key) => owns(key) }),
    async list(wanted) {
      // A host's store key is its shard key, and so is a companion's (sharded with its host).
      const only = wanted ? { keys: wanted } : {};
      const hosts = await deps.store.list(BMH_KIND, only);
      const found = hosts.map((host): readonly [string, HostEvent] => {
        const key = BMH_KIND_DEFINITION.shardKey(host);
        return [key, { type: 'upsert', kind: BMH_KIND, key, object: host, change: 'spec' }];
      });
      // The companions after their hosts, so the index links them; a host reads its own at start.
      for (const companion of WAKING) {
        const kind = companion.kind as HostCompanionKind;
        for (const object of await deps.store.list(kind, only)) {
          const key = `${object.metadata.namespace}/${object.metadata.name}`;
          found.push([companion.shardKey(object), { type: 'upsert', kind, key, object, change: 'status' }]);
        }
      }
      return found;
    },
  };
}

