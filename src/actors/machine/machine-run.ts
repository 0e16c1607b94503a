import type { CapacityMsg, SlotNotice } from '../capacity/index.ts';
import { SlotLease } from '../capacity/index.ts';
import type { ActorRef, Clock, Reply, TimerHandle } from '../runtime/index.ts';
import { tell, tellExpress, tellNextIteration, tellUrgent } from '../runtime/index.ts';
import type { MachineLogic, MachineView } from '../../machines/logic.ts';
import type { ChangeSink } from './changes.ts';
import type { Lane, MachineAdapter, MachineIO, MachineKind } from './kind.ts';
import type { Answer, MachineMsg } from './messages.ts';
import { TICK } from './messages.ts';

/** Where a machine actor asks for capacity; without it the kind may not ask for slots. */
export interface SlotDeps {
  readonly broker: ActorRef<CapacityMsg>;
  readonly ttlMs: number;
}

type AnyMsg = MachineMsg<{ type: string }, unknown, unknown>;

// One machine actor's state: the kind's state, its adapter, and what the actor itself holds for
// it (the requeue timer, the slot, the calls in flight, a pending drain). It is also the adapter's
// I/O handle, so a host costs no object more than it needs.
export class MachineRun<S, E, F extends { readonly type: string }, W, Snap> implements MachineIO<E> {
  machine: S | null = null;
  timer: TimerHandle | null = null;
  readonly slot: SlotLease | undefined;
  /** Calls started and not yet answered. */
  calls = 0;
  /** Set by drain: no new call starts; the replies wait for the calls in flight. */
  drains: Array<Reply<void>> | null = null;
  readonly adapter: MachineAdapter<S, E, F, W, Snap>;
  readonly logic: MachineLogic<S, E, F, MachineView, unknown, unknown>;
  readonly notify: (n: SlotNotice) => void;
  /** This incarnation follows a crash: its first state is restored from the store (`logic.restore`). */
  restarted = false;
  /** The view last reported to `changes` (null: none yet, or the object is gone). */
  shown: MachineView | null = null;

  constructor(
    readonly key: string,
    kind: MachineKind<S, E, F, W, Snap>,
    private readonly self: ActorRef<AnyMsg>,
    readonly clock: Clock,
    slots: SlotDeps | undefined,
    readonly changes?: ChangeSink,
  ) {
    this.logic = kind.logic;
    this.slot = slots ? new SlotLease(slots.broker, kind.slotHolder?.(key) ?? key, clock, slots.ttlMs, () => tell(self, { type: 'renewSlot' })) : undefined;
    // Slot notices take the express lane: a grant starts its call in the instant the slot frees,
    // even past the iteration's slice (a queued notice or a lost slot can wait for the next one).
    this.notify = (n) => (n.type === 'slotGranted' ? tellUrgent(self, n) : tellExpress(self, n));
    this.adapter = kind.adapter(this);
  }

  /** Marks an incarnation that follows a crash; returns itself, for the behavior's init. */
  restoring(restarted: boolean): this {
    this.restarted = restarted;
    return this;
  }

  get draining(): boolean {
    return this.drains !== null;
  }

  tell(event: E): void {
    tell(this.self, { type: 'answer', event });
  }

  run<R>(work: () => Promise<R>, answer: (result: R) => E, lane?: (result: R) => Lane): boolean {
    // A draining actor issues nothing new: the next owner re-reads status and makes the call.
    if (this.drains !== null) return false;
    this.calls += 1;
    work().then((result) => {
      this.calls -= 1;
      const msg: Answer<E> = { type: 'answer', event: answer(result) };
      if (lane !== undefined && lane(result) === 'nextIteration') tellNextIteration(this.self, msg);
      else tell(this.self, msg);
    }, (error: unknown) => {
      this.calls -= 1;
      tell(this.self, { type: 'callFailed', error });
    });
    return true;
  }

  requeue(afterMs: number): void {
    if (this.drains !== null) return;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      tell(this.self, TICK);
    }, afterMs);
  }

  cancelTimer(): void {
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  /** Replies to the drains once no call is in flight and the kind's last write is done. */
  async settleDrain(): Promise<void> {
    if (this.calls > 0 || this.drains === null) return;
    await this.adapter.whenIdle?.();
    const waiting = this.drains;
    this.drains = [];
    for (const reply of waiting) reply();
  }
}
