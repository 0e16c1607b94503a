// When a shard's owner gives its tenure up because the records it writes keep refusing its fence
// (issue 30). Pure: (state, event, now) -> { state, effects }; the shard lease manager acts.
//
// Why one refusal is enough by default: a refusal is not a timeout that may pass, it is a record
// (the store's, or a backend's owner record) saying it has seen an epoch of this shard at or above
// ours. A tenure's epoch never changes, so every fenced write of this tenure to that record will be
// refused for as long as the tenure lasts; waiting for more only lengthens the stall (issue 30:
// 5 hosts unserved for ~3 minutes). Either the lease bucket handed out an epoch below one already
// used (a diverged 2.9.10 replica) and a retake above the refused epoch heals it, or another node
// holds the shard at a later epoch and the retake's create fails against its key: both are right.
// What keeps this from flapping is the floor, not a count: the retake claims above the highest
// epoch it was refused against, so the same record cannot refuse the next tenure. The threshold
// and window stay a policy for a deployment that would rather see a refusal repeat first.

export interface StaleFencePolicy {
  /** Refusals of one tenure, within windowMs, that give the shard up. */
  readonly threshold: number;
  readonly windowMs: number;
}

export const DEFAULT_STALE_FENCE_POLICY: StaleFencePolicy = { threshold: 1, windowMs: 30_000 };

export type RefusedBy = 'store' | 'backend';

/** The last give-up of a shard, for introspection and logs. */
export interface StaleFenceRetake {
  /** The tenure given up. */
  readonly epoch: number;
  /** The highest epoch it was refused against: the retake claims above it. */
  readonly lostTo: number;
  readonly by: RefusedBy;
  readonly at: number;
}

export interface StaleFenceState {
  /** The tenure held now; null while none is, or while the one held is being given up. */
  readonly epoch: number | null;
  /** When this tenure's refusals inside the window came. */
  readonly refusedAt: readonly number[];
  /** The highest epoch known for the shard (refused against, or seen in the lease bucket). */
  readonly floor: number;
  /** Refusals of held tenures since start. */
  readonly refused: number;
  /** Give-ups since start. */
  readonly retakes: number;
  readonly last: StaleFenceRetake | null;
}

export type StaleFenceEvent =
  | { readonly type: 'acquired'; readonly epoch: number }
  /** A fenced write or call of tenure `epoch` refused: the record holds `current`. */
  | { readonly type: 'refused'; readonly epoch: number; readonly current: number; readonly by: RefusedBy }
  /** A lease write of this shard seen in the bucket, at this epoch or revision. */
  | { readonly type: 'seen'; readonly epoch: number }
  /** The tenure ended (lost, released, handed off). */
  | { readonly type: 'ended' };

export type StaleFenceEffect = { readonly type: 'giveUp'; readonly retake: StaleFenceRetake; readonly refusals: number };

export interface StaleFenceStep {
  readonly state: StaleFenceState;
  readonly effects: readonly StaleFenceEffect[];
  /** True when the event was a refusal of the tenure held (counted), false for one ignored. */
  readonly counted: boolean;
}

export const initialStaleFence: StaleFenceState = { epoch: null, refusedAt: [], floor: 0, refused: 0, retakes: 0, last: null };

export function stepStaleFence(state: StaleFenceState, event: StaleFenceEvent, now: number, policy: StaleFencePolicy = DEFAULT_STALE_FENCE_POLICY): StaleFenceStep {
  const none = (next: StaleFenceState): StaleFenceStep => ({ state: next, effects: [], counted: false });
  switch (event.type) {
    case 'acquired':
      return none({ ...state, epoch: event.epoch, refusedAt: [], floor: Math.max(state.floor, event.epoch) });
    case 'seen':
      return none({ ...state, floor: Math.max(state.floor, event.epoch) });
    case 'ended':
      return none({ ...state, epoch: null, refusedAt: [] });
    case 'refused': {
      // A refusal of an earlier tenure (a write in flight when it ended) says nothing of this one.
      // One against a lower epoch is not a refusal a fence rule makes: ignored, not trusted.
      if (state.epoch === null || event.epoch !== state.epoch || event.current < event.epoch) return none(state);
      const refusedAt = [...state.refusedAt.filter((at) => now - at < policy.windowMs), now];
      const floor = Math.max(state.floor, event.current);
      const counted = { ...state, refusedAt, floor, refused: state.refused + 1 };
      if (refusedAt.length < Math.max(1, policy.threshold)) return { state: counted, effects: [], counted: true };
      const retake: StaleFenceRetake = { epoch: event.epoch, lostTo: floor, by: event.by, at: now };
      // Later refusals of this tenure (writes still in flight) change nothing: it is being given up.
      return {
        state: { ...counted, epoch: null, refusedAt: [], retakes: state.retakes + 1, last: retake },
        effects: [{ type: 'giveUp', retake, refusals: refusedAt.length }],
        counted: true,
      };
    }
  }
}

/** The epoch a new tenure must claim at least: above every epoch known for the shard. */
export const claimAbove = (state: StaleFenceState): number => state.floor + 1;
