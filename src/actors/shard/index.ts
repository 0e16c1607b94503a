export { askBinding, shardBehavior, shardEvent } from './shard.ts';
export type { DrainMsg, KindActors, KindActorsSpec, KindRouter, ShardBinding, ShardMsg, ShardOptions, ShardScope } from './shard.ts';
