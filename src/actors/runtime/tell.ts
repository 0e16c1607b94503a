import { ActorCell } from './cell.ts';
import { send } from './nact-bridge.ts';
import { TURN, runExpressTurn, toldUrgent } from './receive.ts';
import type { ActorRef, TellOutcome } from './ref.ts';
import { RingQueue } from './ring-queue.ts';

/** Fire and forget. Never throws: 'overflow' when the mailbox is full, 'dead' when stopped or draining. */
export function tell<M>(ref: ActorRef<M>, msg: M): TellOutcome {
  // A forged or deserialised `{ path }` is not an actor: answer 'dead' rather than throw.
  return ref instanceof ActorCell ? deliver(ref, msg) : 'dead';
}

/** Where a message goes in the mailbox: last, last and urgent up to it, or first and urgent. */
type Placement = 'last' | 'urgent' | 'first';

export function deliver(cell: ActorCell, msg: unknown, placement: Placement = 'last'): TellOutcome {
  if (cell.refusing) return 'dead';
  const ref = cell.nactRef;
  if (ref === null) return 'dead';
  if (cell.depth >= cell.mailbox.capacity) return overflow(cell, msg);
  cell.depth++;
  if (cell.depth > cell.highWater) cell.highWater = cell.depth;
  const queue = (cell.queue ??= new RingQueue());
  if (placement !== 'last') toldUrgent();
  if (placement === 'first') {
    queue.unshift(msg);
    cell.urgent++;
  } else {
    queue.push(msg);
    // Everything queued ahead of it runs first (mailbox order), so it runs past the slice too.
    if (placement === 'urgent') cell.urgent = queue.length;
  }
  // One turn token in nact at a time: the turn runs everything queued by then (receive.ts).
  if (!cell.scheduled) {
    cell.scheduled = true;
    send(ref, TURN);
  }
  return 'delivered';
}

function overflow(cell: ActorCell, msg: unknown): TellOutcome {
  cell.dropped++;
  if (cell.mailbox.overflow === 'reject' || cell.queue === null) return 'overflow';
  // drop-oldest: the new message takes the oldest one's place.
  cell.queue.shift();
  if (cell.urgent > 0) cell.urgent--;
  cell.queue.push(msg);
  return 'delivered';
}

/**
 * tell, on the next event-loop iteration. For a message that must not get ahead of what this
 * iteration has just made urgent: a call's answer that freed a slot waits behind the grant of
 * that slot to the next host, which then starts its call without queueing behind the answers
 * of every call that finished in the same instant.
 */
export function tellNextIteration<M>(ref: ActorRef<M>, msg: M): void {
  // A closure, not setImmediate's arguments: Node drops an immediate's callback once it ran but
  // keeps its arguments, and a ran immediate stays linked to the others of its iteration, which
  // nact's actors each keep one of. The message (a call's whole answer) lived as long as that.
  setImmediate(() => tell(ref, msg));
}

/**
 * tell, and unless the receiver is in a turn run its turn at once, in a microtask of the current
 * task, instead of behind every turn nact holds for this iteration (its own token included). For
 * hand-offs whose latency is the point: a call that freed a backend slot tells the broker, and the
 * broker tells the next waiter, this way, so the waiter starts its call in the instant the slot
 * frees. Through nact every hop waited for the next check phase behind all the other actors made
 * ready meanwhile (a thousand hosts starting up, say), and twenty calls ending in one millisecond
 * handed over their slots as one batch whose tail paid for the whole batch, plus any stall of the
 * process inside it. The receiver still runs one turn at a time, in mailbox order; a receiver in
 * a turn or waiting out a restart gets the message through nact as usual.
 */
export function tellExpress<M>(ref: ActorRef<M>, msg: M): TellOutcome {
  return express(ref, msg, 'last');
}

/**
 * tellExpress, and ahead of everything already in the mailbox: the next message the receiver
 * takes, even in the middle of a turn. For the few messages that free or hand over a backend slot
 * (a release, a grant), which must not wait behind a backlog of requests (a thousand hosts asking
 * for slots at start-up). Their order relative to the queue is the sender's responsibility.
 * Urgent as tellUrgent is: the message runs even once the iteration's slice is over.
 */
export function tellFirst<M>(ref: ActorRef<M>, msg: M): TellOutcome {
  return express(ref, msg, 'first');
}

/**
 * tellExpress, and the receiver's turn runs this message (and, in mailbox order, whatever is
 * queued ahead of it) even once the iteration's slice of turns is over. The slice keeps a
 * thousand ready hosts from holding back timers and I/O; a slot hand-off is not that kind of
 * work: there is one per backend operation that ends, so the capacity limit bounds it. Without
 * this, a slot freed in the timers phase after a full slice (every iteration while a fleet
 * starts) waited in nact for the next one, behind the whole slice: 10-100 ms per hand-off.
 */
export function tellUrgent<M>(ref: ActorRef<M>, msg: M): TellOutcome {
  return express(ref, msg, 'urgent');
}

const SETTLED = Promise.resolve();

function express<M>(ref: ActorRef<M>, msg: M, placement: Placement): TellOutcome {
  if (!(ref instanceof ActorCell)) return 'dead';
  const cell: ActorCell = ref;
  if (cell.turning || cell.restart !== null) return deliver(cell, msg, placement);
  const hadToken = cell.scheduled;
  // Marked first, so deliver queues the message without sending nact a turn token.
  cell.scheduled = true;
  const outcome = deliver(cell, msg, placement);
  if (outcome !== 'delivered') {
    cell.scheduled = hadToken;
    return outcome;
  }
  if (!cell.expressQueued) {
    cell.expressQueued = true;
    // A reaction on a settled promise is a microtask like queueMicrotask's, queued in the same
    // place, but Node's queueMicrotask wraps every callback in an AsyncResource (async ids, a
    // bound function): most of an express tell's allocation. The callback is made once per cell.
    void SETTLED.then((cell.expressTurn ??= () => runExpressTurn(cell)));
  }
  return outcome;
}
