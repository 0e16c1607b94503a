// The one skeleton every kind of resource runs on (DESIGN "One skeleton, every kind"): a kind is
// a pure machine — `step(state, event, now) -> { state, effects }` with time passed in — plus the
// view introspection shows of its state. The generic machine actor performs the effects and feeds
// their results back as events; a kind never sees an actor, a clock or a backend.

/** One step of a kind's machine: the next state and the effects the actor performs, in order. */
export interface MachineStep<S, F> {
  readonly state: S;
  readonly effects: readonly F[];
}

/** Effects every kind may ask for; a kind adds its own (`call`, `writeStatus`, ...). */
export type CommonEffect =
  | { readonly type: 'requestSlot'; readonly op: string; readonly since?: number }
  | { readonly type: 'releaseSlot' }
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
}

/** A condition as a view lists it: without message and time. */
export interface ViewCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason?: string;
}

/** A kind's pure rules. */
export interface MachineLogic<S, E, F, V extends MachineView = MachineView> {
  /** The resource kind, as in its manifests: 'BareMetalHost', 'MaasMachine', 'MaasCluster'. */
  readonly kind: string;
  step(state: S, event: E, now: number): MachineStep<S, F>;
  view(state: S): V;
  /** The object is gone (its finalizer removed): the actor may stop. */
  isGone(state: S): boolean;
}
