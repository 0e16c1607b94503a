import { BMH_KIND } from '../../api/index.ts';
import type { ResourceEvent } from '../../ports/index.ts';
import { BMH_KIND_DEFINITION } from '../../machines/bmh/kind.ts';
import type { ActorRef } from '../runtime/index.ts';
import { tell } from '../runtime/index.ts';
import type { KindActors, KindRouter, ShardBinding } from '../shard/index.ts';
import type { MachineChanges } from '../machine/index.ts';
import type { HostDeps } from './host.ts';
import { hostBehavior } from './host.ts';
import type { HostMsg } from './messages.ts';

/** A BareMetalHost's change in the one store. */
export type HostEvent = ResourceEvent<'BareMetalHost'>;

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
  // As the kind declares it (namespace/name): the key a deletion carries is that too.
  const shardKeyOf = (event: HostEvent): string => (event.type === 'upsert' ? BMH_KIND_DEFINITION.shardKey(event.object) : event.key);
  return {
    name: 'host', // as BareMetalHost's kind.ts names it
    open(scope) {
      let actors: KindActors<HostMsg> | null = null;
      // Every change goes to the node's stream; a host's end (finalizer removed) also lets the
      // shard stop and forget its actor.
      const hostDeps: HostDeps = {
        ...deps, fence: scope.fence, ...(scope.leaseHeld ? { leaseHeld: scope.leaseHeld } : {}),
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
        event(event) {
          if (event.type === 'upsert') tell(hosts.ensure(event.key), { type: 'observed', host: event.object });
          else hosts.stop(event.key);
        },
        ref: (key) => hosts.get(key),
      };
    },
    // Only this node's hosts: a store may then leave the others' changes unparsed.
    watch: (emit, owns) => deps.store.watch<'BareMetalHost'>((event) => emit(shardKeyOf(event), event), { kinds: [BMH_KIND], keys: (key) => owns(key) }),
    async list() {
      const hosts = await deps.store.list(BMH_KIND);
      return hosts.map((host): readonly [string, HostEvent] => {
        const key = BMH_KIND_DEFINITION.shardKey(host);
        return [key, { type: 'upsert', kind: BMH_KIND, key, object: host, change: 'spec' }];
      });
    },
  };
}

