import type { ActorCell } from './cell.ts';
import { BehaviorError } from './errors.ts';
import { send } from './nact-bridge.ts';
import { RingQueue } from './ring-queue.ts';
import { crashed } from './supervision.ts';

/** Sent by spawn when init failed: the actor waits out its backoff before any message. */
export const RESTART = Symbol('metalfleet.actor.restart');
/** The one token an actor with queued messages has in nact's mailbox: "run a turn". */
export const TURN = Symbol('metalfleet.actor.turn');

/**
 * Messages one turn may run before the actor goes to the back of the line. nact gives every
 * message its own setImmediate, so an actor ran one message per event-loop iteration and a
 * chain of hops (a result, the broker's release, the next host's grant) cost one iteration per
 * message queued ahead of it. A turn runs what was queued when it began, as Akka's dispatcher
 * "throughput" does; the bound keeps one busy actor from holding the loop. Messages that arrive
 * during the turn (a self-tell, an answer that resolved at once) wait for the next one, so a
 * causal chain still yields to timers and I/O at every hop.
 */
export const THROUGHPUT = 64;

/**
 * The longest one event-loop iteration runs turns before the rest wait for the next one, so
 * timers and I/O (lease renewals, heartbeats, NATS traffic) come in between. Batched turns make
 * thousands of actors ready in the same iteration (a fleet moving in step); without a slice they
 * would all run before the loop looks at anything else.
 */
export const SLICE_MS = 100;

// performance.now() when this iteration's first turn ran; -1 before. An immediate queued then
// runs at the start of the next iteration's check phase, ahead of every turn queued meanwhile,
// and closes the slice.
let sliceStart = -1;
const closeSlice = (): void => {
  sliceStart = -1;
};

function sliceOver(): boolean {
  const now = performance.now();
  if (sliceStart < 0) {
    sliceStart = now;
    setImmediate(closeSlice);
    return false;
  }
  return now - sliceStart >= SLICE_MS;
}

type Step = ActorCell | Promise<ActorCell>;

/**
 * The one nact handler shared by every actor. nact's state is the cell itself, so no closure per
 * actor; the behavior's state lives in cell.state. Never throws: every failure goes to crashed().
 */
export function runMessage(cell: ActorCell, raw: unknown): Step {
  if (cell.stopped) return cell;
  if (raw === RESTART) return cell.restart === null ? cell : cell.restart.promise;
  if (cell.restart !== null || cell.turnDone !== null) return turnWhenFree(cell);
  return !cell.priority && cell.urgent === 0 && sliceOver() ? park(cell) : startTurn(cell);
}

/**
 * A turn, once nothing else holds the actor. A crash in an express turn (below) leaves its
 * restart for the next token to wait out (through nact, the crash's restart promise is already
 * what nact waits on); an express turn awaiting its handler is waited for, so two turns of one
 * actor never overlap.
 */
function turnWhenFree(cell: ActorCell): Step {
  if (cell.stopped) return cell;
  if (cell.restart !== null) return cell.restart.promise.then(() => turnWhenFree(cell));
  if (cell.turnDone !== null) return cell.turnDone.then(() => turnWhenFree(cell));
  return startTurn(cell);
}

/**
 * Runs a turn outside nact, now (tellExpress queues it as a microtask). Never beside another turn
 * of the actor: a running one takes the message instead, and a token nact still holds waits for
 * this turn (runMessage) and then finds the queue empty. The slice still bounds it: past the
 * slice the turn runs nothing and hands its queue to nact.
 */
export function runExpressTurn(cell: ActorCell): void {
  cell.expressQueued = false;
  if (cell.stopped) return;
  if (cell.turning || cell.restart !== null) {
    // Whatever runs or restarts first, a token makes sure the message is not left without a turn.
    cell.scheduled = true;
    if (cell.nactRef !== null) send(cell.nactRef, TURN);
    return;
  }
  void startTurn(cell);
}

/**
 * Messages one turn of a 'system' actor may run, and for how long. Its next turn waits for the
 * next event-loop iteration, and an iteration lasts a slice of host turns, so at THROUGHPUT a
 * broker serving 100,000 hosts ran 64 requests per 100 ms and fell minutes behind. The time bound
 * keeps a turn whose messages await I/O (a broker writing grants to NATS KV) from holding the
 * actor's own timers (its flush tick) back for seconds: 4,096 awaited writes in one turn let
 * grants lapse in KV on a three-node cluster.
 */
export const SYSTEM_THROUGHPUT = 4096;
export const SYSTEM_TURN_MS = 50;

function startTurn(cell: ActorCell): Step {
  cell.turning = true;
  if (cell.priority) cell.turnStartedAt = performance.now();
  return runTurn(cell, Math.min(cell.priority ? SYSTEM_THROUGHPUT : THROUGHPUT, cell.queue?.length ?? 0));
}

// Turns that came after the slice ran out. nact waits on each one's promise (so the actor runs
// nothing else meanwhile); the next iteration starts them in order, before newer turns. Parking
// costs one promise per actor, where sending each one round nact again would cost a trip per
// actor per iteration until its turn came.
const parked = new RingQueue<{ cell: ActorCell; resolve: (step: Step) => void }>();
let resumeQueued = false;

// Messages told urgent (tellFirst, tellUrgent) so far: resume() looks whether a turn told one.
let urgentTold = 0;

/** Counts a message told urgent (tell.ts). */
export function toldUrgent(): void {
  urgentTold++;
}

function park(cell: ActorCell): Promise<ActorCell> {
  return new Promise((resolve) => {
    parked.push({ cell, resolve });
    if (!resumeQueued) {
      resumeQueued = true;
      setImmediate(resume);
    }
  });
}

function resume(): void {
  resumeQueued = false;
  while (parked.length > 0) {
    if (sliceOver()) {
      resumeQueued = true;
      setImmediate(resume);
      return;
    }
    const { cell, resolve } = parked.shift()!;
    const told = urgentTold;
    // An express turn may have taken the actor while it was parked.
    resolve(turnWhenFree(cell));
    if (urgentTold !== told && parked.length > 0) {
      // The turn handed over a slot or asked for one (a grant to pass on, an acquire a free slot
      // waits for): that runs in microtasks, which wait for this loop to return. The rest of the
      // parked turns go on in the next iteration, not the hand-off after a whole slice of them.
      resumeQueued = true;
      setImmediate(resume);
      return;
    }
  }
}

function systemTurnOver(cell: ActorCell): boolean {
  return performance.now() - cell.turnStartedAt >= SYSTEM_TURN_MS;
}

function runTurn(cell: ActorCell, budget: number): Step {
  for (;;) {
    const queue = cell.queue;
    if (cell.stopped || queue === null || queue.length === 0) break;
    // A slot hand-off (tellFirst, tellUrgent) is taken past every bound, even one that arrived
    // during this turn (a broker awaiting its write, say): through nact its turn would wait for
    // the next iteration, behind a whole slice of host turns. The rest waits for the next turn.
    if (cell.urgent > 0) cell.urgent--;
    else if (budget <= 0 || (cell.priority ? systemTurnOver(cell) : sliceOver())) break;
    else budget--;
    const msg = queue.shift();
    cell.depth--;
    cell.busy = true;
    let next: unknown;
    try {
      next = cell.behavior.receive(cell.state, msg, cell as never);
    } catch (error) {
      return endTurn(cell, crashed(cell, error));
    }
    // Only native promises are awaited (receive returns S | Promise<S>); probing every state for
    // a `then` would cost a property lookup per message. nact waits on the turn meanwhile.
    if (next instanceof Promise) {
      const pending = settleLater(cell, next, budget);
      cell.turnDone = pending;
      return pending;
    }
    const step = settle(cell, next);
    if (step !== cell) return endTurn(cell, step);
  }
  return endTurn(cell, cell);
}

async function settleLater(cell: ActorCell, pending: Promise<unknown>, budget: number): Promise<ActorCell> {
  let next: unknown;
  try {
    next = await pending;
  } catch (error) {
    return endTurn(cell, crashed(cell, error));
  }
  const step = settle(cell, next);
  return step === cell ? runTurn(cell, budget) : endTurn(cell, step);
}

/**
 * The turn is over: if messages are still queued, one more token goes behind whatever nact holds
 * (a crash's restart wait included, which nact finishes first).
 */
function endTurn(cell: ActorCell, step: Step): Step {
  cell.turning = false;
  cell.turnDone = null;
  cell.scheduled = false;
  if (!cell.stopped && cell.queue !== null && cell.queue.length > 0 && cell.nactRef !== null) {
    cell.scheduled = true;
    send(cell.nactRef, TURN);
  }
  return step;
}

// Messages every actor of the process has handled: a measure of work done that neither the
// machine's load nor a syscall per look distorts (the capacity broker paces its turns by it).
let handled = 0;

/** Messages handled by every actor of this process so far. */
export function messagesHandled(): number {
  return handled;
}

function settle(cell: ActorCell, next: unknown): Step {
  if (next === undefined) {
    return crashed(cell, new BehaviorError(cell.path, `${cell.kind} receive returned undefined; return the next state (a missing return?)`));
  }
  cell.busy = false;
  // Stopped while the handler ran (nact lets it finish): its result has nowhere to go.
  if (cell.stopped) return cell;
  cell.state = next;
  cell.processed++;
  handled++;
  return cell;
}
