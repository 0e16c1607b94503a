// The one skeleton every kind of resource runs on (DESIGN "One skeleton, every kind"): a kind is
// a pure machine — its first state from the object (`initial`, `restore`), then
// `step(state, event, now) -> { state, effects }` with time passed in — plus the view introspection
// shows of its state. The generic machine actor builds the state, steps it and performs the
// effects, feeding their results back as events; a kind never sees an actor, a clock or a backend,
// and its adapter never builds or steps a state (it observes and performs).

/** One step of a kind's machine: the next state and the effects the actor performs, in order. */
export interface MachineStep<S, F> {
  readonly state: S;
  readonly effects: readonly F[];
}

/** Effects every kind may ask for; a kind adds its own (`call`, `writeStatus`, ...). */
export type CommonEffect =
  | { readonly type: 'requestSlot'; readonly op: string; readonly since?: number }
  | { readonly type: 'releaseSlot' }
  // Gives back a grant an earlier incarnation of this holder left (its shard's previous owner, the
  // actor before a restart), whichever node it was made for: the machine has read the backend and
  // knows no gated work of its runs there. A grant whose work still runs is adopted by requestSlot.
  | { readonly type: 'releaseGrant' }
  | { readonly type: 'requeue'; readonly afterMs: number }
  | { readonly type: 'addFinalizer'; readonly finalizer: string }
  | { readonly type: 'removeFinalizer'; readonly finalizer: string }
  | { readonly type: 'event'; readonly severity: 'Normal' | 'Warning'; readonly reason: string; readonly message: string };

/** Slot notices every kind that holds capacity receives. */
export type SlotEvent =
  | { readonly type: 'slotGranted'; readonly grantId: string }
  | { readonly type: 'slotQueued'; readonly position: number }
  | { readonly type: 'slotLost'; readonly grantId: string; readonly reason: string };

/** What `hosts`, `inspect` and `top` show of any kind's state. */
export interface MachineView {
  /** The kind's state name as its users know it (BMO's provisioning state, MAAS's status, ...). */
  readonly state: string;
  readonly power: 'on' | 'off' | 'unknown';
  /** 'OK', 'delayed', 'error', 'detached', ... */
  readonly operationalStatus: string;
  readonly error: string | null;
  /** The error's kind as the object's status names it (BMO's errorType, CAPMAAS's failureReason); '' or absent: none. */
  readonly errorType?: string;
  /** status.conditions, for the readers that list them (`hosts -o wide`). */
  readonly conditions?: readonly ViewCondition[];
  /**
   * When the object entered `state` (RFC 3339), where its stored status dates it; absent: not
   * known. A node's first look at an object another node drove reads its time in the state here.
   */
  readonly enteredAt?: string | undefined;
}

/**
 * An `enteredAt` stamp as a time, when it is earlier than `bound`; else `bound`. Never later: a
 * stamp from a clock ahead of this node's would show a negative time in the state.
 */
export function enteredBefore(stamp: string | undefined, bound: number): number {
  const at = stamp === undefined ? Number.NaN : Date.parse(stamp);
  return Number.isFinite(at) && at < bound ? at : bound;
}

/** A condition as a view lists it: without message and time. */
export interface ViewCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason?: string;
}

/**
 * A kind's pure rules, over its state S, events E and effects F; O is its object as the store
 * holds it and W the world around it its steps read (other objects; `null` for a kind with none).
 */
export interface MachineLogic<S, E, F, V extends MachineView = MachineView, O = unknown, W = unknown> {
  /** The resource kind, as in its manifests: 'BareMetalHost', 'MaasMachine', 'MaasCluster'. */
  readonly kind: string;
  /**
   * The first state of an actor's first life, from the object as observed and its world. The
   * object's status is what an earlier owner decided (the store is the durable truth), so a new
   * object starts and a moved one resumes from it.
   */
  initial(object: O, world: W): S;
  /**
   * The state of an actor restarted after a crash: rebuilt from the object as the store holds it,
   * never from the memory the crash left. It has no world: the restarted actor steps the kind's
   * observation (object and world) next, as it does on every wake-up.
   */
  restore(stored: O): S;
  step(state: S, event: E, now: number): MachineStep<S, F>;
  view(state: S): V;
  /** The object is gone (its finalizer removed): the actor may stop. */
  isGone(state: S): boolean;
}
