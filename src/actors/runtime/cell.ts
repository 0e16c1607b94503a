import type { Ref } from 'nact';
import type { AnyBehavior } from './behavior.ts';
import type { TimerHandle } from './clock.ts';
import type { ActorError } from './errors.ts';
import type { MailboxOptions, SupervisionOptions } from './options.ts';
import type { RingQueue } from './ring-queue.ts';
import type { RuntimeCore } from './core.ts';

/**
 * An ask waiting for its reply; aborted when the actor stops. Pending asks form an intrusive
 * list from cell.asks, so an actor that was asked once keeps no empty Set afterwards.
 */
export interface PendingAsk {
  prev: PendingAsk | null;
  next: PendingAsk | null;
  abort(error: ActorError): void;
}

/** A crashed actor waiting out its backoff; nact is blocked on `promise` meanwhile. */
export interface PendingRestart {
  readonly timer: TimerHandle;
  readonly promise: Promise<ActorCell>;
  readonly resolve: (next: ActorCell | Promise<ActorCell>) => void;
}

/**
 * Everything the runtime keeps about one actor, in one object: it is the registry record, the
 * ref handed out (ActorRef is a type-level view of it) and the ctx passed to handlers. One object
 * per actor keeps 100,000 idle actors cheap; rarely used parts are null until needed.
 */
export class ActorCell {
  nactRef: Ref<unknown> | null = null;
  /** undefined = no live incarnation (before init, after a crash, after stop). */
  state: unknown = undefined;
  depth = 0;
  highWater = 0;
  processed = 0;
  restarts = 0;
  dropped = 0;
  busy = false;
  /** A turn token is in nact's mailbox or running (receive.ts). */
  scheduled = false;
  /** A turn is running, or awaiting its handler (receive.ts). */
  turning = false;
  /** While a turn awaits its handler: settles when that turn ends. */
  turnDone: Promise<unknown> | null = null;
  /** An express turn is queued as a microtask (tell.ts). */
  expressQueued = false;
  /** Runs this actor's express turn; made on its first express tell (tell.ts). */
  expressTurn: (() => void) | null = null;
  /**
   * How many messages at the head of the queue hand over a backend slot (tellFirst, tellUrgent):
   * they run even once the iteration's slice is over (receive.ts).
   */
  urgent = 0;
  stopped = false;
  /** Set when stopped or draining: tell returns 'dead'. */
  refusing: boolean;
  lastError: string | null = null;
  lastErrorAt: number | null = null;
  /** The mailbox, made on the first tell; nact holds only turn tokens. */
  queue: RingQueue<unknown> | null = null;
  children: Map<string, ActorCell> | null = null;
  asks: PendingAsk | null = null;
  /** Crash times inside the supervision window. */
  crashes: number[] | null = null;
  restart: PendingRestart | null = null;
  /** Spawned with priority 'system': never parked behind the slice (receive.ts). */
  priority = false;
  /** performance.now() when a system actor's current turn began. */
  turnStartedAt = 0;

  constructor(
    readonly system: RuntimeCore,
    readonly parent: ActorCell | null,
    readonly name: string,
    readonly path: string,
    readonly behavior: AnyBehavior,
    readonly mailbox: Readonly<MailboxOptions>,
    readonly supervision: Readonly<SupervisionOptions>,
    readonly startedAt: number,
  ) {
    this.refusing = parent === null ? system.refusing : parent.refusing;
  }

  get self(): this {
    return this;
  }

  get kind(): string {
    return this.behavior.kind;
  }

  /** Idle: nothing queued and nothing running (a crashed actor waiting to restart counts). */
  get idle(): boolean {
    return this.stopped || (this.depth === 0 && !this.busy);
  }

  // A ref logged or serialised shows its address, not the actor's state.
  toJSON(): { path: string } {
    return { path: this.path };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `ActorRef(${this.path})`;
  }
}
