import type { SlotEvent } from '../../machines/logic.ts';
import type { ActorContext, Behavior, Clock } from '../runtime/index.ts';
import { tell } from '../runtime/index.ts';
import type { ActorEffect, KindEffect, MachineKind, Observation } from './kind.ts';
import type { Answer, ControlMsg, MachineMsg, Tick } from './messages.ts';
import { TICK } from './messages.ts';
import type { ChangeSink } from './changes.ts';
import { sameView } from './changes.ts';
import type { SlotDeps } from './machine-run.ts';
import { MachineRun } from './machine-run.ts';

type Effect = { readonly type: string };

export interface MachineActorDeps {
  readonly clock: Clock;
  /** The capacity broker, for kinds that hold slots. */
  readonly slots?: SlotDeps;
  /** Where the actor reports each change of its view (the node's MachineChanges, for its shard). */
  readonly changes?: ChangeSink;
}

/** A machine actor's behavior: the generic actor's state over the kind's, and its mailbox. */
export type MachineBehavior<S, E, F extends Effect, W extends Effect, Snap> = Behavior<MachineRun<S, E, F, W, Snap>, MachineMsg<W, E, Snap>>;

// Bounds the events a turn steps back to back from effects answered within it (a few DNS calls).
const MAX_INLINE_STEPS = 8;

type Only<E, Snap, T extends string> = Extract<ControlMsg<Snap> | Answer<E>, { type: T }>;
type Common<T extends ActorEffect['type']> = Extract<ActorEffect, { type: T }>;
// The helpers below serve every kind; they never look inside S, E or W.
type Run = MachineRun<unknown, unknown, Effect, unknown, unknown>;

// The one actor every kind runs on (DESIGN "One skeleton, every kind"): a mailbox whose wake-ups
// the kind turns into its observed event, a pure step with the clock's now, the common effects
// (timer, slot, finalizers) performed here and the kind's own by its adapter, whose answers come
// back through the mailbox. The mailbox is the only way anything reaches the machine.
//
// A turn stays synchronous until a hook hands back a promise (a read of the store, an awaited
// write): the hot path of a host (an answer, a notice) then costs the runtime no promise at all.
// The helpers are module functions over the actor's state; the behavior is one small object per
// actor whose methods are shared (issue 29: a closure per hook cost every host four closures,
// their context, and under tsx a name dictionary each).
export function machineBehavior<S, E, F extends Effect, W extends Effect, Snap>(
  key: string,
  kind: MachineKind<S, E, F, W, Snap>,
  deps: MachineActorDeps,
): MachineBehavior<S, E, F, W, Snap> {
  return new MachineActorBehavior(key, kind, deps) as unknown as MachineBehavior<S, E, F, W, Snap>;
}

type AnyKind = MachineKind<unknown, unknown, Effect, Effect, unknown>;

class MachineActorBehavior {
  readonly kind: string;
  // Incarnations of this actor: every one after the first follows a crash.
  private lives = 0;

  constructor(private readonly key: string, private readonly machineKind: AnyKind, private readonly deps: MachineActorDeps) {
    this.kind = machineKind.actorKind;
  }

  init(ctx: ActorContext<unknown>): Run {
    const { deps } = this;
    // A restart after a crash starts empty and re-reads the object from its store on the next
    // message; the zero-delay tick makes sure there is one.
    deps.clock.setTimeout(() => tell(ctx.self, TICK), 0);
    const restarted = this.lives++ > 0;
    return new MachineRun(this.key, this.machineKind, ctx.self as never, deps.clock, deps.slots, deps.changes).restoring(restarted);
  }

  // Shared by every actor (the runtime may call them unbound): they read only the state.
  readonly receive = receive;
  readonly onStop = stopRun;
  readonly describe = describeRun;
}

function stopRun(s: Run): void {
  s.cancelTimer();
  s.adapter.close?.();
  // Stopped with the object gone: nothing runs at the backend for it any more. Stopped for any
  // other reason (its shard moved, the node stops, a restart after a crash), its backend work
  // may still run: the slot stays taken, for the next owner to adopt or to lapse (issue 19.1).
  if (s.machine !== null && s.logic.isGone(s.machine)) s.slot?.release();
  else s.slot?.abandon();
}

function describeRun(s: Run): Record<string, unknown> {
  if (s.machine === null) return { state: null };
  const view = s.logic.view(s.machine);
  return { state: view.state, operationalStatus: view.operationalStatus, ...s.adapter.describe?.(s.machine) };
}

function receive(s: Run, msg: MachineMsg<Effect, unknown, unknown>): Run | Promise<Run> {
  switch (msg.type) {
    case 'snapshot':
      (msg as Only<unknown, unknown, 'snapshot'>).reply(s.adapter.snapshot(s.machine));
      return s;
    case 'renewSlot':
      s.slot?.renew();
      return s;
    case 'drain':
      (s.drains ??= []).push((msg as Only<unknown, unknown, 'drain'>).reply);
      s.cancelTimer();
      return s.settleDrain().then(() => s);
    case 'callFailed':
      throw (msg as Only<unknown, unknown, 'callFailed'>).error;
    case 'answer':
      // Draining, the answers of calls already made still count.
      return done(s, apply(s, (msg as Only<unknown, unknown, 'answer'>).event));
    case 'slotGranted':
    case 'slotQueued':
    case 'slotLost':
      if (s.drains !== null) return s;
      // A notice is the kind's SlotEvent, with the broker's details besides.
      return done(s, apply(s, msg as SlotEvent));
    default: {
      // A wake-up; draining, it waits for the new owner.
      if (s.drains !== null) return s;
      const seen = s.adapter.observe(s.machine, msg as Tick);
      return done(s, seen instanceof Promise ? seen.then((o) => observed(s, o)) : observed(s, seen));
    }
  }
}

function done(s: Run, work: void | Promise<void>): Run | Promise<Run> {
  if (work instanceof Promise) return work.then(() => turnEnded(s));
  return turnEnded(s);
}

// Whatever the turn's steps wrote goes out now, once; a drain then waits for that write.
function turnEnded(s: Run): Run | Promise<Run> {
  s.adapter.turnEnded?.();
  return s.drains !== null ? s.settleDrain().then(() => s) : s;
}

// The kind's adapter only reads: the state is built here, from what it read (restored after a
// crash), and each event of the wake-up is stepped here with its effects performed.
function observed(s: Run, seen: Observation<unknown> | null): void | Promise<void> {
  if (seen === null) return;
  if (s.machine === null) {
    if (seen.seen === undefined) return;
    const { object, world } = seen.seen;
    s.machine = s.restarted ? s.logic.restore(object) : s.logic.initial(object, world);
    s.adapter.began?.(s.machine);
    // The state as read, before anything steps it: readers learn the object is here, and where.
    report(s, s.machine);
  }
  return stepEach(s, seen.events, 0);
}

function stepEach(s: Run, events: readonly unknown[], from: number): void | Promise<void> {
  for (let i = from; i < events.length; i++) {
    const work = stepAndPerform(s, s.machine, events[i], 0);
    if (work instanceof Promise) return work.then(() => stepEach(s, events, i + 1));
  }
}

// An answer or a notice. One that arrives before any state (after a restart) has the kind
// observe first, so it applies to the object as it is now.
function apply(s: Run, event: unknown): void | Promise<void> {
  if (s.machine !== null) return stepAndPerform(s, s.machine, event, 0);
  const seen = s.adapter.observe(null, null);
  const then = (o: Observation<unknown> | null): void | Promise<void> => {
    const first = observed(s, o);
    if (s.machine === null) return first;
    if (first instanceof Promise) return first.then(() => stepAndPerform(s, s.machine, event, 0));
    return stepAndPerform(s, s.machine, event, 0);
  };
  return seen instanceof Promise ? seen.then(then) : then(seen);
}

// Steps, performs the effects in order, and steps at once what the kind answered within the
// turn. Synchronous until an effect hands back a promise; the rest then runs in stepAsync.
function stepAndPerform(s: Run, from: unknown, first: unknown, n: number): void | Promise<void> {
  let before = from;
  let event: unknown = first;
  for (; event !== undefined && n <= MAX_INLINE_STEPS; n++) {
    const { state, effects } = s.logic.step(before, event, s.clock.now());
    s.machine = state;
    event = undefined;
    for (let i = 0; i < effects.length; i++) {
      const answered = perform(s, effects[i] as Effect, state);
      if (answered instanceof Promise) return stepAsync(s, before, state, effects, i, answered, n);
      if (answered !== undefined) event = answered;
    }
    stepped(s, before, state);
    before = state;
  }
}

async function stepAsync(s: Run, before: unknown, state: unknown, effects: readonly Effect[], at: number, pending: Promise<unknown>, n: number): Promise<void> {
  let event: unknown = undefined;
  for (let i = at; i < effects.length; i++) {
    const answered = i === at ? await pending : await perform(s, effects[i] as Effect, state);
    if (answered !== undefined) event = answered;
  }
  stepped(s, before, state);
  if (event !== undefined && n < MAX_INLINE_STEPS) await stepAndPerform(s, state, event, n + 1);
}

function stepped(s: Run, before: unknown, state: unknown): void {
  s.adapter.stepped?.(before, state);
  if (state !== before) report(s, state);
  if (s.logic.isGone(state)) s.adapter.gone?.(state);
}

// One change event per step whose view differs from the last reported, for every kind alike;
// a gone object's last one says `to: null`, once.
function report(s: Run, state: unknown): void {
  const emit = s.changes;
  if (emit === undefined) return;
  const last = s.shown;
  if (s.logic.isGone(state)) {
    if (last === null) return;
    s.shown = null;
    emit({ kind: s.logic.kind, key: s.key, from: last.state, to: null, view: last });
    return;
  }
  const view = s.logic.view(state);
  if (last !== null && sameView(last, view)) return;
  s.shown = view;
  emit({ kind: s.logic.kind, key: s.key, from: last?.state ?? null, to: view.state, view });
}

function perform(s: Run, effect: Effect, state: unknown): unknown {
  switch (effect.type) {
    case 'requeue':
      s.requeue((effect as Common<'requeue'>).afterMs);
      return;
    case 'requestSlot': {
      const { op, since } = effect as Common<'requestSlot'>;
      const claim = s.adapter.slotClaim?.(state, op);
      if (!s.slot || !claim) throw new Error(`${s.logic.kind} ${s.key} asked for a slot but runs without capacity (no broker or no slotClaim)`);
      s.slot.request(claim.pool, op, claim.exempt, s.notify, since);
      return;
    }
    case 'releaseSlot':
      s.slot?.release();
      return;
    case 'releaseGrant': {
      // The pool the grant was asked in is the one this holder would ask in now.
      const claim = s.adapter.slotClaim?.(state, 'release');
      if (s.slot && claim) s.slot.releaseInherited(claim.pool);
      return;
    }
    // Through the kind's store hook, fenced: once the shard has moved on, the new owner's view stands.
    case 'addFinalizer':
      return s.adapter.finalizer?.('add', (effect as Common<'addFinalizer'>).finalizer);
    case 'removeFinalizer':
      return s.adapter.finalizer?.('remove', (effect as Common<'removeFinalizer'>).finalizer);
    default:
      return s.adapter.perform(effect as KindEffect<Effect>, state);
  }
}
