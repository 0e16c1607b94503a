import { ActorCell } from './cell.ts';
import { send } from './nact-bridge.ts';
import { QUEUED } from './receive.ts';
import type { ActorRef, TellOutcome } from './ref.ts';

/** Fire and forget. Never throws: 'overflow' when the mailbox is full, 'dead' when stopped or draining. */
export function tell<M>(ref: ActorRef<M>, msg: M): TellOutcome {
  // A forged or deserialised `{ path }` is not an actor: answer 'dead' rather than throw.
  return ref instanceof ActorCell ? deliver(ref, msg) : 'dead';
}

export function deliver(cell: ActorCell, msg: unknown): TellOutcome {
  if (cell.refusing) return 'dead';
  if (cell.depth >= cell.mailbox.capacity) return overflow(cell, msg);
  const ref = cell.nactRef;
  if (ref === null) return 'dead';
  cell.depth++;
  if (cell.depth > cell.highWater) cell.highWater = cell.depth;
  if (cell.queue === null) {
    send(ref, msg);
  } else {
    cell.queue.push(msg);
    send(ref, QUEUED);
  }
  return 'delivered';
}

// Only the reject policy lands here with no queue: drop-oldest actors always have one.
function overflow(cell: ActorCell, msg: unknown): TellOutcome {
  cell.dropped++;
  if (cell.queue === null) return 'overflow';
  // drop-oldest: the new message takes the oldest one's place (and its placeholder in nact).
  cell.queue.shift();
  cell.queue.push(msg);
  return 'delivered';
}
