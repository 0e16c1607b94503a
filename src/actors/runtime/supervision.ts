import type { ActorCell } from './cell.ts';
import { BehaviorError, describeError } from './errors.ts';
import { nextDelay, type RetryPolicy } from '../../api/index.ts';
import type { BackoffOptions } from './options.ts';
import { retire, stopCell, stopChildren } from './stop.ts';

// Supervision is done here, not through nact's onCrash: handleFault is async with no catch (a
// throwing onCrash is an unhandled rejection, fatal on Node 20), 'escalate' from a top-level
// actor stops it, and 'reset' has no backoff. The wrapped handler catches everything instead and
// keeps nact waiting on a promise during the backoff, so queued messages stay queued.

type Step = ActorCell | Promise<ActorCell>;

/** A message handler threw or rejected: drop the message, then restart or give up. */
export function crashed(cell: ActorCell, error: unknown): Step {
  cell.busy = false;
  if (cell.stopped) return cell;
  cell.processed++;
  return failed(cell, error, 'receive');
}

/** Records a crash (of receive or init) and decides: restart after backoff, or give up. */
export function failed(cell: ActorCell, error: unknown, phase: 'receive' | 'init'): Step {
  const { system, supervision } = cell;
  const now = system.clock.now();
  cell.lastError = describeError(error);
  cell.lastErrorAt = now;
  system.report(cell, phase, error);
  // Restart semantics as in Akka: the children of the failed incarnation go with it.
  stopChildren(cell);
  retire(cell);
  const inWindow = recordCrash(cell, now, supervision.windowMs);
  if (inWindow > supervision.maxRestarts) {
    giveUp(cell, error);
    return cell;
  }
  cell.restarts++;
  return scheduleRestart(cell, backoffDelay(inWindow, supervision.backoff));
}

/** Starts an incarnation; a throwing init or an undefined state is a crash like any other. */
export function reinit(cell: ActorCell): Step {
  if (cell.stopped) return cell;
  try {
    const state = cell.behavior.init(cell as never);
    if (state === undefined) throw new BehaviorError(cell.path, `${cell.kind} init returned undefined; return the initial state`);
    cell.state = state;
    return cell;
  } catch (error) {
    return failed(cell, error, 'init');
  }
}

/** The restart delay after the n-th crash in the window: the backoff options as a RetryPolicy without jitter. */
export function backoffDelay(crashesInWindow: number, backoff: BackoffOptions): number {
  const policy: RetryPolicy = { initialMs: backoff.initialMs, maxMs: backoff.maxMs, factor: backoff.factor ?? 2, jitter: 'none' };
  return nextDelay(policy, crashesInWindow, Math.random);
}

function recordCrash(cell: ActorCell, now: number, windowMs: number): number {
  const crashes = (cell.crashes ??= []);
  crashes.push(now);
  while (crashes.length > 0 && (crashes[0] as number) <= now - windowMs) crashes.shift();
  return crashes.length;
}

function scheduleRestart(cell: ActorCell, delayMs: number): Promise<ActorCell> {
  let resolve!: (next: Step) => void;
  const promise = new Promise<ActorCell>((r) => (resolve = r));
  const timer = cell.system.clock.setTimeout(() => {
    if (cell.restart?.promise !== promise) return;
    cell.restart = null;
    resolve(reinit(cell));
  }, delayMs);
  cell.restart = { timer, promise, resolve };
  return promise;
}

function giveUp(cell: ActorCell, error: unknown): void {
  const onGiveUp = cell.supervision.onGiveUp;
  if (onGiveUp !== undefined) {
    try {
      onGiveUp(error, { path: cell.path, name: cell.name, restarts: cell.restarts });
    } catch (hookError) {
      cell.system.report(cell, 'onGiveUp', hookError);
    }
  }
  stopCell(cell);
}
