import type { Reply } from '../runtime/index.ts';
import type { CapacityFigures } from './figures.ts';

/** What a holder hears about its slot, through the `notify` it gave with its acquire. */
export type SlotNotice =
  | { type: 'slotGranted'; grantId: string; pool: string; operation: string; waitedMs: number }
  | { type: 'slotQueued'; pool: string; position: number }
  | { type: 'slotLost'; grantId: string; pool: string; reason: string };

/**
 * What a holder sends its node's capacity proxy. `notify` is called synchronously inside the
 * proxy's turn, so it must be cheap and must not block: typically `(n) => tell(hostRef, n)`.
 */
export type CapacityMsg =
  // gen: the holder's request count; a release goes ahead of queued messages (tellFirst), so an
  // acquire it overtook (same holder, gen not newer than the release's) must be dropped.
  // since: the work began before this request (a host resumed by its shard's new owner): the
  // queue counts the holder's wait from then.
  | { type: 'acquire'; holder: string; pool: string; operation: string; exempt: boolean; notify: (n: SlotNotice) => void; gen?: number; since?: number }
  // inherited: given back by the holder's next incarnation (a new owner, a restart) once it knows the
  // work the grant covered is over: whichever node the grant was made for, not only this one.
  | { type: 'release'; holder: string; pool: string; gen?: number; inherited?: boolean }
  // The holder's object is gone (deleted, perhaps with its finalizer removed by hand): no spec is
  // left to say which pool it asked in, so whatever it holds or waits for goes back in every pool,
  // on whichever node, at once rather than at the grant's TTL.
  | { type: 'releaseGone'; holder: string; gen?: number }
  // The holder stops without giving its slot back: its work may still be running at the backend
  // (its shard moved, the node shuts down, the actor restarts). The proxy forgets it and stops
  // renewing; the host's next owner adopts it by acquiring for the same holder (the broker moves a
  // live grant to the node that asks), or gives it back (release, inherited) once it has read the
  // backend and found the work over; only a holder never taken up again lets it lapse at its TTL.
  | { type: 'abandon'; holder: string; pool: string }
  // What the acquire carried, again: a holder the proxy gave up for silence (its renewals came late,
  // behind a slow turn) is taken back on its next renew instead of waiting forever unheard.
  | { type: 'renew'; holder: string; pool: string; operation?: string; exempt?: boolean; notify?: (n: SlotNotice) => void; gen?: number }
  | { type: 'setLimit'; pool: string; limit: number }
  | { type: 'figures'; reply: Reply<CapacityFigures> }
  // One page of the names of every holder the broker knows (grants, queues, acquires on their
  // way), sorted, after `after`; unanswered when the broker is unreachable (the asker times out).
  | { type: 'holders'; after?: string; reply: Reply<HolderPage> };

/** next: the `after` of the following page; null on the last. */
export interface HolderPage {
  readonly holders: readonly string[];
  readonly next: string | null;
}

export type Notify = (n: SlotNotice) => void;
