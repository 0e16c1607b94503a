import {
  spawn,
  tell,
  type ActorContext,
  type ActorRef,
  type ActorSystem,
  type AnyActorRef,
  type Behavior,
  type Clock,
  type SpawnOptions,
  type TimerHandle,
} from '../runtime/index.ts';
import type { Grant } from './grant.ts';
import { isValidLimit } from './limits.ts';
import type { CapacityMsg, Notify, SlotNotice } from './messages.ts';
import { DEFAULT_TTL_MS, PoolBook } from './pool-book.ts';

export interface CapacityBrokerOptions {
  /** Limits by pool (backend endpoint); 0 or Infinity = unlimited. */
  readonly limits: Readonly<Record<string, number>>;
  /** Limit of a pool not in `limits`, taken when it is first asked for. */
  readonly defaultLimit: number;
  /** Grant lifetime without a renew; default 30 s. */
  readonly ttlMs?: number;
  /** Default: the actor system's clock. */
  readonly clock?: Clock;
  /** Actor name under `parent`; default 'capacity-broker'. */
  readonly name?: string;
  /** Passed to spawn; default: a mailbox of BROKER_MAILBOX messages. */
  readonly spawnOptions?: SpawnOptions;
}

interface BrokerState {
  readonly book: PoolBook<Notify>;
  readonly clock: Clock;
  /** The one expiry timer, armed for `timerAt`; undefined once it has fired or when nothing is held. */
  timer: TimerHandle | undefined;
  timerAt: number;
  /** notify (or figures reply) callbacks that threw: a crash would restart the broker with an
   * empty book and forget every grant, so it counts them instead and shows them in describe. */
  notifyErrors: number;
  /** Messages refused as malformed (e.g. a negative limit). */
  rejected: number;
}

/**
 * Every host has at most a few messages to the broker in flight (acquire, renew, release), so its
 * mailbox holds a few per host at worst. The runtime's default of 10,000 would turn a burst from a
 * large fleet into dropped acquires, i.e. hosts that wait forever; this bound only stops runaway.
 */
export const BROKER_MAILBOX = 1_000_000;
const DEFAULT_SPAWN: SpawnOptions = { mailbox: { capacity: BROKER_MAILBOX } };

const EXPIRE: CapacityMsg = Object.freeze({ type: 'expire' });

/**
 * Spawn the broker that hands out backend slots. Every holder is woken by its own notify the
 * moment a slot frees (no polling), grants lapse after `ttlMs` without a renew, and one timer,
 * armed for the earliest expiry only while something is held, takes back slots of holders that
 * died. Bad limits or TTL throw RangeError here, at spawn.
 */
export function spawnCapacityBroker(
  parent: ActorSystem | AnyActorRef,
  options: CapacityBrokerOptions,
): ActorRef<CapacityMsg> {
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  // Validates limits and TTL now: the same error thrown from init would only loop in restarts.
  new PoolBook({ limits: options.limits, defaultLimit: options.defaultLimit, ttlMs });
  const behavior: Behavior<BrokerState, CapacityMsg> = {
    kind: 'capacity-broker',
    init: (ctx) => {
      const clock = options.clock ?? ctx.system.clock;
      const book = new PoolBook<Notify>({
        limits: options.limits,
        defaultLimit: options.defaultLimit,
        ttlMs,
        // Grant ids of an earlier incarnation must not match ours, or a late slotLost could be taken
        // for the current grant.
        idPrefix: `${clock.now().toString(36)}-`,
      });
      return { book, clock, timer: undefined, timerAt: Number.NaN, notifyErrors: 0, rejected: 0 };
    },
    receive,
    onStop: disarm,
    describe,
  };
  return spawn(parent, options.name ?? 'capacity-broker', behavior, options.spawnOptions ?? DEFAULT_SPAWN);
}

function receive(state: BrokerState, msg: CapacityMsg, ctx: ActorContext<CapacityMsg>): BrokerState {
  const { book } = state;
  const now = state.clock.now();
  // A stale grant is taken back before anything else in every turn (an O(1) look at the head), so
  // no message ever sees a grant that should have lapsed, whatever the timer's lateness.
  const due = book.nextExpiry();
  if (due !== undefined && due <= now) expireDue(state, now);

  switch (msg.type) {
    case 'acquire': {
      const r = book.acquire(msg.holder, msg.pool, msg.operation, msg.exempt, now, msg.notify);
      if (r.status === 'granted') notifyGranted(state, r.grant);
      else send(state, msg.notify, { type: 'slotQueued', pool: msg.pool, position: r.position });
      break;
    }
    case 'release':
      for (const g of book.release(msg.holder, msg.pool, now).granted) notifyGranted(state, g);
      break;
    case 'renew':
      // An unknown grant has nobody to tell: if it lapsed, its holder already got slotLost above.
      book.renew(msg.holder, msg.pool, now);
      break;
    case 'setLimit':
      if (!isValidLimit(msg.limit)) {
        state.rejected++;
        break;
      }
      for (const g of book.setLimit(msg.pool, msg.limit, now)) notifyGranted(state, g);
      break;
    case 'figures':
      try {
        msg.reply(book.figures(now));
      } catch {
        state.notifyErrors++;
      }
      break;
    case 'expire':
      // Already done above; this tick exists only to start a turn when no other message comes.
      break;
    default:
      state.rejected++;
  }
  arm(state, ctx, now);
  return state;
}

function expireDue(state: BrokerState, now: number): void {
  const { lost, granted } = state.book.expire(now);
  for (const g of lost) {
    if (g.tag === undefined) continue;
    send(state, g.tag, {
      type: 'slotLost',
      grantId: g.grantId,
      pool: g.pool,
      reason: `grant expired: not renewed within ${state.book.ttlMs} ms`,
    });
  }
  for (const g of granted) notifyGranted(state, g);
}

function notifyGranted(state: BrokerState, g: Grant<Notify>): void {
  if (g.tag === undefined) return;
  send(state, g.tag, {
    type: 'slotGranted',
    grantId: g.grantId,
    pool: g.pool,
    operation: g.operation,
    waitedMs: g.grantedAt - g.requestedAt,
  });
}

function send(state: BrokerState, notify: Notify, notice: SlotNotice): void {
  try {
    notify(notice);
  } catch {
    // One holder's broken callback must not cost every other holder its broker.
    state.notifyErrors++;
  }
}

/**
 * Keep exactly one timer, for the earliest expiry. A timer armed for an earlier moment is left
 * alone even if that grant was released or renewed meanwhile: it fires, finds nothing due and
 * re-arms, which is cheaper than re-arming on every renew of the head grant.
 */
function arm(state: BrokerState, ctx: ActorContext<CapacityMsg>, now: number): void {
  const next = state.book.nextExpiry();
  if (next === undefined) {
    disarm(state);
    return;
  }
  if (state.timer !== undefined && state.timerAt <= next) return;
  disarm(state);
  const self = ctx.self;
  // Not keepAlive: grants held must not keep a process that is otherwise done from exiting.
  const handle = state.clock.setTimeout(() => {
    // Only this timer's own firing clears the slot: a newer timer may have replaced it.
    if (state.timer === handle) state.timer = undefined;
    tell(self, EXPIRE);
  }, next - now);
  state.timer = handle;
  state.timerAt = next;
}

function disarm(state: BrokerState): void {
  if (state.timer === undefined) return;
  state.clock.clearTimeout(state.timer);
  state.timer = undefined;
}

function describe(state: BrokerState): Record<string, unknown> {
  const next = state.book.nextExpiry();
  return {
    ...state.book.summary(),
    nextExpiryInMs: next === undefined ? null : Math.max(0, next - state.clock.now()),
    notifyErrors: state.notifyErrors,
    rejected: state.rejected,
  };
}
