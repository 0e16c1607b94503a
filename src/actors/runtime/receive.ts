import type { ActorCell } from './cell.ts';
import { BehaviorError } from './errors.ts';
import { crashed } from './supervision.ts';

/** Sent by spawn when init failed: the actor waits out its backoff before any message. */
export const RESTART = Symbol('metalfleet.actor.restart');
/** Stands in nact's mailbox for a message kept in the cell's own queue ('drop-oldest'). */
export const QUEUED = Symbol('metalfleet.actor.queued');

/**
 * The one nact handler shared by every actor. nact's state is the cell itself, so no closure per
 * actor; the behavior's state lives in cell.state. Never throws: every failure goes to crashed().
 */
export function runMessage(cell: ActorCell, raw: unknown): ActorCell | Promise<ActorCell> {
  if (cell.stopped) return cell;
  if (raw === RESTART) return cell.restart === null ? cell : cell.restart.promise;
  const msg = cell.queue === null ? raw : cell.queue.shift();
  cell.depth--;
  cell.busy = true;
  let next: unknown;
  try {
    next = cell.behavior.receive(cell.state, msg, cell as never);
  } catch (error) {
    return crashed(cell, error);
  }
  // Only native promises are awaited (receive returns S | Promise<S>); probing every state for a
  // `then` would cost a property lookup per message.
  return next instanceof Promise ? settleLater(cell, next) : settle(cell, next);
}

async function settleLater(cell: ActorCell, pending: Promise<unknown>): Promise<ActorCell> {
  let next: unknown;
  try {
    next = await pending;
  } catch (error) {
    return crashed(cell, error);
  }
  return settle(cell, next);
}

function settle(cell: ActorCell, next: unknown): ActorCell | Promise<ActorCell> {
  if (next === undefined) {
    return crashed(cell, new BehaviorError(cell.path, `${cell.kind} receive returned undefined; return the next state (a missing return?)`));
  }
  cell.busy = false;
  // Stopped while the handler ran (nact lets it finish): its result has nowhere to go.
  if (cell.stopped) return cell;
  cell.state = next;
  cell.processed++;
  return cell;
}
