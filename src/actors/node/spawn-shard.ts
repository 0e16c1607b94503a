import type { HostDeps } from '../host/index.ts';
import type { ActorRef, ActorSystem } from '../runtime/index.ts';
import { spawn } from '../runtime/index.ts';
import type { ShardMsg } from '../shard/index.ts';
import { shardBehavior } from '../shard/index.ts';
import type { NodeConfig } from './embedded-node.ts';
import { markCrashed } from './mark-crashed.ts';

/**
 * One shard actor under the node's system, as both the embedded and the cluster node run them.
 * Its mailbox takes a whole store listing at once (every host of the shard on start-up).
 */
export function spawnShard(system: ActorSystem, name: string, shard: number, deps: HostDeps, supervision: NodeConfig['supervision']): ActorRef<ShardMsg> {
  return spawn(system, name, shardBehavior({
    shard,
    deps,
    supervision,
    onHostGaveUp: (key, error, restarts) => void markCrashed(deps.store, deps.log, key, error, restarts),
  }), { mailbox: { capacity: 1_000_000 } });
}
