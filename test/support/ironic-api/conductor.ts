import type { NodeRecord } from './node.ts';

// The conductor's side of the server: work started by an API call (a deploy, a clean, a
// service) runs as a list of phases, one phase per advance. An advance comes from a timer
// (`auto`: every `phaseDelayMs`) or only from the test (`manual`: `advance()`), so a test can
// stop a node in any intermediate state and look at it, without sleeping.

export type ClockMode = 'auto' | 'manual';

/** One unit of conductor work; returns false to end the task early (it failed or was aborted). */
export type Phase = (node: NodeRecord) => boolean | void;

interface Task {
  readonly key: string;
  readonly node: NodeRecord;
  readonly phases: Phase[];
  timer: NodeJS.Timeout | null;
}

/** The conductor's hostname, shown in `reservation` and in "locked by host" errors. */
export const CONDUCTOR_HOST = 'ironic-api-test-server';

export class Conductor {
  private readonly tasks = new Map<string, Task>();
  private closed = false;

  constructor(
    private readonly mode: ClockMode,
    private readonly phaseDelayMs: number,
  ) {}

  /**
   * Queues phases for the node, replacing what was queued under the same key (an abort replaces
   * the rest of a clean). A power change runs under its own key (`<uuid>#power`).
   */
  start(node: NodeRecord, phases: Phase[], key: string = node.fields.uuid): void {
    this.cancel(key);
    if (phases.length === 0) return;
    const task: Task = { key, node, phases: [...phases], timer: null };
    this.tasks.set(key, task);
    this.schedule(task);
  }

  cancel(key: string): void {
    const t = this.tasks.get(key);
    if (t?.timer) clearTimeout(t.timer);
    this.tasks.delete(key);
  }

  /** Runs the next phase of the node's tasks (or of every task); answers how many phases ran. */
  advance(uuid?: string): number {
    const list = [...this.tasks.values()].filter((t) => uuid === undefined || t.node.fields.uuid === uuid);
    for (const t of list) this.runOne(t);
    return list.length;
  }

  /** Advances until no task is left (manual mode), at most `limit` rounds. */
  settle(limit = 1_000): void {
    for (let i = 0; i < limit && this.tasks.size > 0; i++) this.advance();
    if (this.tasks.size > 0) throw new Error(`ironic-api: tasks still running after ${limit} rounds: ${[...this.tasks.keys()].join(', ')}`);
  }

  /** The uuids of nodes with work queued. */
  pending(): string[] {
    return [...new Set([...this.tasks.values()].map((t) => t.node.fields.uuid))];
  }

  close(): void {
    this.closed = true;
    for (const uuid of [...this.tasks.keys()]) this.cancel(uuid);
  }

  private schedule(t: Task): void {
    if (this.mode !== 'auto' || this.closed) return;
    t.timer = setTimeout(() => {
      t.timer = null;
      this.runOne(t);
    }, this.phaseDelayMs);
  }

  private runOne(t: Task): void {
    if (this.tasks.get(t.key) !== t) return;
    const phase = t.phases.shift();
    const more = phase === undefined ? false : phase(t.node) !== false;
    if (!more || t.phases.length === 0) {
      // The worker ends and the task manager releases the node's lock.
      t.node.fields.reservation = null;
      this.tasks.delete(t.key);
      return;
    }
    this.schedule(t);
  }
}
