export { askBinding, shardBehavior, shardEvent } from './shard.ts';
export type { DrainMsg, KindActors, KindActorsSpec, KindRouter, ShardBinding, ShardMsg, ShardOptions, ShardScope } from './shard.ts';
export { DependentsIndex, NO_WAKES } from './dependents-index.ts';
export type { DependentsReader, IndexChange, IndexedKind, Wakes } from './dependents-index.ts';
