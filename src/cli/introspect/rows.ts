// The reply rows the tables and the dashboard read, from the wire schemas (one source of shapes).
import type { PoolRow } from '../../cluster/introspect/index.ts';

export type {
  ActorRow, BackendCallRow, CapacityReply, HostRow, InfoReply, InspectedHost, PoolRow, ShardRow,
} from '../../cluster/introspect/index.ts';

/** Slots in use and hosts waiting, exactly: the row's lists stop at the broker's first 200. */
export const inUseOf = (p: PoolRow): number => p.inUseCount ?? p.inUse.length;
export const waitingOf = (p: PoolRow): number => p.waitingCount ?? p.waiting.length;

/** A row with the node that reported it. */
export type OnNode<R> = R & { readonly node: string };
