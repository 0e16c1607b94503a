export { shardBehavior } from './shard.ts';
export type { ShardMsg, ShardOptions } from './shard.ts';
export { shardOf } from './shard-of.ts';
