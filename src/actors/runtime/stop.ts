import { ActorCell } from './cell.ts';
import { ActorStopped } from './errors.ts';
import { stopNact } from './nact-bridge.ts';
import type { AnyActorRef } from './ref.ts';

/** Stops the actor and its children now: queued messages are dropped, onStop runs, asks reject. */
export function stop(ref: AnyActorRef): void {
  if (ref instanceof ActorCell) stopCell(ref);
}

export function stopCell(cell: ActorCell): void {
  if (cell.stopped) return;
  cell.stopped = true;
  cell.refusing = true;
  // Children first, as in Akka: a parent's onStop may rely on them being gone.
  stopChildren(cell);
  const siblings = cell.parent === null ? cell.system.roots : cell.parent.children;
  if (siblings?.get(cell.name) === cell) siblings.delete(cell.name);
  cell.system.registry.remove(cell);
  const restart = cell.restart;
  if (restart !== null) {
    // Release nact's wait on the backoff so the closure does not hang around.
    cell.restart = null;
    cell.system.clock.clearTimeout(restart.timer);
    restart.resolve(cell);
  }
  if (cell.nactRef !== null) stopNact(cell.nactRef);
  while (cell.asks !== null) cell.asks.abort(new ActorStopped(cell.path));
  retire(cell);
  cell.queue = null;
  cell.urgent = 0;
  cell.crashes = null;
}

export function stopChildren(cell: ActorCell): void {
  if (cell.children === null) return;
  for (const child of [...cell.children.values()]) stopCell(child);
}

/** Ends the current incarnation: onStop on its state (timers), then forget the state. */
export function retire(cell: ActorCell): void {
  const state = cell.state;
  cell.state = undefined;
  const onStop = cell.behavior.onStop;
  if (state === undefined || onStop === undefined) return;
  try {
    onStop(state, cell as never);
  } catch (error) {
    cell.system.report(cell, 'onStop', error);
  }
}
