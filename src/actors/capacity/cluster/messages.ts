import { z } from 'zod';

// The cluster broker's wire protocol (requests on subjects().capacity, notices pushed on
// subjects().capacityNotify(node)). Only holder keys, pool names, node names, ids and numbers
// travel: never a credential, never a BMC address beyond what a pool name already is.

/** A host key (`namespace/name`) or any other holder id; bounded so one request cannot be huge. */
export const HolderKey = z.string().min(1).max(512);
/** `fixture:default`, `ironic:http://127.0.0.1:6385`: a backend endpoint. */
export const PoolName = z.string().min(1).max(256);
/** A node name is one subject token: no dots, spaces or wildcards. */
export const NodeName = z.string().min(1).max(128).regex(/^[^\s.*>]+$/, 'a node name is one subject token (no ".", "*", ">" or spaces)');
export const Operation = z.string().min(1).max(64);
const Millis = z.number().int().nonnegative();
const Epoch = z.number().int().nonnegative();
/** 0 means unlimited (the operator convention); Infinity does not cross the wire. */
export const WireLimit = z.number().int().nonnegative();

/** Most holders one renew batch may carry: a node with more splits its batch. */
export const MAX_RENEW_BATCH = 2_000;

export const AcquireRequest = z.object({
  type: z.literal('acquire'),
  holder: HolderKey,
  node: NodeName,
  pool: PoolName,
  operation: Operation,
  exempt: z.boolean(),
  /** How long the holder has waited already (a re-sent acquire after a failover keeps its place in FIFO). */
  waitedMs: Millis.optional(),
});
// node: the releasing node. A grant or a place in the queue that another node has taken over since
// (the host moved with its shard) is not its to give back: the release is answered 'unknown'.
// Optional for senders from before it existed, whose releases still act on the holder alone.
// inherited: sent by the holder's next owner (or its actor after a restart) for a grant an earlier
// incarnation left, once it has read the backend and found that work over: released on whatever
// node. Answered from the broker's memory: most resumed hosts hold none, not worth a KV read each
// (a grant the broker has not seen lapses at its TTL, as before).
// pool absent: the holder's object is gone (deleted, its finalizer perhaps removed by hand), so no
// spec says which pool it asked in: its grants and places in every pool go back, on whatever node.
// Answered from the broker's memory, as an inherited release is.
export const ReleaseRequest = z.object({ type: z.literal('release'), holder: HolderKey, pool: PoolName.optional(), node: NodeName.optional(), inherited: z.boolean().optional() });
// grantId: the grant the holder has, so a new broker can take it over for a pool without a limit
// (whose grants live in the broker's memory only).
export const HolderRef = z.object({ holder: HolderKey, pool: PoolName, grantId: z.string().min(1).max(128).optional() });
export const RenewRequest = z.object({ type: z.literal('renew'), node: NodeName, holders: z.array(HolderRef).max(MAX_RENEW_BATCH) });
export const FiguresRequest = z.object({ type: z.literal('figures') });
/** Most holder names one page of a holders answer carries (NATS's default payload is 1 MB). */
export const MAX_HOLDERS_PAGE = 2_000;
// Every holder the broker knows (a live grant, a place in a queue, an acquire it has received and
// not yet served), by name in sorted order, one page after `after`: a new shard owner's sweep for
// deleted hosts' grants pages through all of them, where the figures list only the first few
// hundred per pool.
export const HoldersRequest = z.object({ type: z.literal('holders'), after: HolderKey.optional(), limit: z.number().int().min(1).max(MAX_HOLDERS_PAGE).optional() });
export const SetLimitRequest = z.object({ type: z.literal('setLimit'), pool: PoolName, limit: WireLimit });

export const BrokerRequest = z.discriminatedUnion('type', [AcquireRequest, ReleaseRequest, RenewRequest, FiguresRequest, SetLimitRequest, HoldersRequest]);
export type BrokerRequest = z.infer<typeof BrokerRequest>;
export type AcquireRequest = z.infer<typeof AcquireRequest>;
export type ReleaseRequest = z.infer<typeof ReleaseRequest>;
export type RenewRequest = z.infer<typeof RenewRequest>;
export type SetLimitRequest = z.infer<typeof SetLimitRequest>;
export type HoldersRequest = z.infer<typeof HoldersRequest>;

/**
 * `validForMs` is how long the grant is durable in KV from the moment the broker answered: a
 * duration, not a timestamp, so the proxy's deadline does not depend on the two nodes' clocks.
 */
export const AcquireReply = z.discriminatedUnion('status', [
  // adopted: true, the holder's live grant from before this acquire (an earlier incarnation's,
  // perhaps covering backend work still running); false, a slot newly given for it. Absent from
  // older brokers: then nobody can tell, and it is treated as adopted.
  z.object({ epoch: Epoch, status: z.literal('granted'), grantId: z.string().min(1), waitedMs: Millis, validForMs: Millis, adopted: z.boolean().optional() }),
  z.object({ epoch: Epoch, status: z.literal('queued'), position: z.number().int().positive() }),
]);
export type AcquireReply = z.infer<typeof AcquireReply>;

export const ReleaseReply = z.object({ epoch: Epoch, outcome: z.enum(['released', 'cancelled', 'unknown']) });
export type ReleaseReply = z.infer<typeof ReleaseReply>;

export const RenewResult = z.discriminatedUnion('status', [
  // Also the answer for a waiter that was granted while its push was lost: it learns it here.
  z.object({ holder: HolderKey, pool: PoolName, status: z.literal('renewed'), grantId: z.string().min(1), validForMs: Millis }),
  z.object({ holder: HolderKey, pool: PoolName, status: z.literal('waiting'), position: z.number().int().positive() }),
  // The broker knows nothing of it: a grant that lapsed, or a waiter a failover forgot.
  z.object({ holder: HolderKey, pool: PoolName, status: z.literal('unknown') }),
]);
export type RenewResult = z.infer<typeof RenewResult>;
export const RenewReply = z.object({ epoch: Epoch, results: z.array(RenewResult).max(MAX_RENEW_BATCH) });
export type RenewReply = z.infer<typeof RenewReply>;

/** next: the `after` of the following page; null on the last. */
export const HoldersReply = z.object({ epoch: Epoch, holders: z.array(HolderKey).max(MAX_HOLDERS_PAGE), next: HolderKey.nullable() });
export type HoldersReply = z.infer<typeof HoldersReply>;

export const SetLimitReply = z.object({ epoch: Epoch, pool: PoolName, limit: WireLimit });
export type SetLimitReply = z.infer<typeof SetLimitReply>;

export const WireFigures = z.object({
  epoch: Epoch,
  pools: z.array(z.object({
    pool: PoolName,
    limit: WireLimit,
    inUse: z.number().int().nonnegative(),
    exempt: z.number().int().nonnegative(),
    waiting: z.number().int().nonnegative(),
    longestWaitMs: Millis,
    /** Seconds this broker saw the pool with a free slot beside a waiting request and no grant. */
    stallSeconds: z.number().nonnegative().default(0),
    holders: z.array(z.object({ holder: HolderKey, node: NodeName, operation: Operation, grantId: z.string(), exempt: z.boolean(), sinceMs: Millis })),
    queue: z.array(z.object({ holder: HolderKey, node: NodeName, operation: Operation, waitingMs: Millis })),
  })),
});
export type WireFigures = z.infer<typeof WireFigures>;

/**
 * Published by a broker once it serves: the holders still waiting were queued in the previous
 * broker's memory only, and a proxy that hears a later epoch asks again at once, instead of at
 * its next renew (a sixth of the TTL later, every slot freed meanwhile idle).
 */
export const BrokerServing = z.object({ epoch: Epoch });
export type BrokerServing = z.infer<typeof BrokerServing>;

/** Pushed to a holder's node: no polling for a freed slot. */
export const SlotPush = z.discriminatedUnion('type', [
  z.object({ type: z.literal('slotGranted'), epoch: Epoch, holder: HolderKey, pool: PoolName, grantId: z.string().min(1), operation: Operation, waitedMs: Millis, validForMs: Millis }),
  z.object({ type: z.literal('slotLost'), epoch: Epoch, holder: HolderKey, pool: PoolName, grantId: z.string().min(1), reason: z.string().max(512) }),
]);
export type SlotPush = z.infer<typeof SlotPush>;
