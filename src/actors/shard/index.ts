export { shardBehavior } from './shard.ts';
export type { ShardMsg, ShardOptions } from './shard.ts';
