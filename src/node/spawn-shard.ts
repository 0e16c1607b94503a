import type { HostDeps } from '../actors/host/index.ts';
import type { ActorRef, ActorSystem } from '../actors/runtime/index.ts';
import { spawn } from '../actors/runtime/index.ts';
import type { ShardMsg } from '../actors/shard/index.ts';
import { shardBehavior } from '../actors/shard/index.ts';
import type { NodeConfig } from './config.ts';
import { markCrashed } from './mark-crashed.ts';

/**
 * One shard actor under the node's system.
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
