// The reply rows the tables and the dashboard read, from the wire schemas (one source of shapes).
export type {
  ActorRow, CapacityReply, HostRow, InfoReply, InspectedHost, PoolRow, ShardRow,
} from '../../cluster/introspect/index.ts';

/** A row with the node that reported it. */
export type OnNode<R> = R & { readonly node: string };
