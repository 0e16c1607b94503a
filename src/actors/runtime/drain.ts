import { ActorCell } from './cell.ts';
import type { Clock, TimerHandle } from './clock.ts';
import type { AnyActorRef } from './ref.ts';
import { stopCell } from './stop.ts';

export interface DrainResult {
  /** Messages run (to success or crash) while draining. */
  drained: number;
  /** Messages queued or running when the deadline hit (or when the actor was stopped meanwhile). */
  abandoned: number;
}

// Idle is polled rather than signalled: no check in the per-message path, and a drain scans each
// actor only until it is idle (refusing tells, an idle actor stays idle).
const POLL_MS = 5;

/**
 * Refuses new tells to `cells`, waits until each has run what it holds or the deadline passes,
 * then calls finish (which stops them) and resolves. settle() ends it early.
 */
export class DrainRun {
  readonly result: Promise<DrainResult>;
  private resolve!: (result: DrainResult) => void;
  private readonly deadline: number;
  private readonly processedBefore: number;
  private next = 0;
  private timer: TimerHandle | null = null;
  private settled = false;

  constructor(
    private readonly clock: Clock,
    private readonly cells: ActorCell[],
    timeoutMs: number,
    private readonly finish: () => void,
  ) {
    this.result = new Promise((resolve) => (this.resolve = resolve));
    this.deadline = clock.now() + Math.max(timeoutMs, 0);
    let processed = 0;
    for (const cell of cells) {
      cell.refusing = true;
      processed += cell.processed;
    }
    this.processedBefore = processed;
    this.check();
  }

  settle(): void {
    if (this.settled) return;
    this.settled = true;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    let processed = 0;
    let abandoned = 0;
    for (const cell of this.cells) {
      processed += cell.processed;
      abandoned += cell.depth + (cell.busy ? 1 : 0);
    }
    this.finish();
    this.resolve({ drained: processed - this.processedBefore, abandoned });
  }

  private readonly check = (): void => {
    this.timer = null;
    if (this.settled) return;
    while (this.next < this.cells.length && (this.cells[this.next] as ActorCell).idle) this.next++;
    const left = this.deadline - this.clock.now();
    if (this.next === this.cells.length || left <= 0) this.settle();
    else this.timer = this.clock.setTimeout(this.check, Math.min(POLL_MS, left), true);
  };
}

/** The actor and all its descendants, parents first. */
function subtree(root: ActorCell): ActorCell[] {
  const out = [root];
  for (let i = 0; i < out.length; i++) {
    const children = (out[i] as ActorCell).children;
    if (children !== null) for (const child of children.values()) out.push(child);
  }
  return out;
}

const subtreeDrains = new WeakMap<ActorCell, Promise<DrainResult>>();

/**
 * system.drain for one actor and its descendants (e.g. a shard on handoff): refuses new tells to
 * them, lets them run what they hold until the deadline, then stops the actor. Idempotent.
 */
export function drainActor(ref: AnyActorRef, timeoutMs: number): Promise<DrainResult> {
  if (!(ref instanceof ActorCell) || ref.stopped) return Promise.resolve({ drained: 0, abandoned: 0 });
  let result = subtreeDrains.get(ref);
  if (result === undefined) {
    result = new DrainRun(ref.system.clock, subtree(ref), timeoutMs, () => stopCell(ref)).result;
    subtreeDrains.set(ref, result);
  }
  return result;
}
