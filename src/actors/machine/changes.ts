import { deepEqual } from '../../api/index.ts';
import type { MachineChange } from '../../machines/change.ts';
import type { MachineView } from '../../machines/logic.ts';

export type { MachineChange };

/** Where one actor reports its changes (a node's stream, seen from one shard). */
export type ChangeSink = (change: MachineChange) => void;

/** A reader of a node's changes; `shard` is the shard whose actor reported it. */
export type ChangeListener = (change: MachineChange, shard: number) => void;

// One stream per node that every kind's actors feed and every reader subscribes to (issue 29.3):
// fleet stats, the metrics, `hosts`, `top` and the page learn of an object of any kind the same
// way. Synchronous: a listener runs inside the reporting actor's turn, so it must only record.
export class MachineChanges {
  private listeners: ChangeListener[] = [];

  /** Calls `listener` with every change from now on, until the returned function is called. */
  subscribe(listener: ChangeListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  emit(change: MachineChange, shard: number): void {
    for (const listener of this.listeners) listener(change, shard);
  }

  /** The sink a shard's actors report to: their changes, stamped with the shard. */
  sink(shard: number): ChangeSink {
    return (change) => this.emit(change, shard);
  }
}

/** Whether two views show the same thing: what decides that a step is reported. */
export function sameView(a: MachineView, b: MachineView): boolean {
  return a.state === b.state && a.power === b.power && a.operationalStatus === b.operationalStatus
    && a.error === b.error && (a.errorType ?? '') === (b.errorType ?? '')
    // A status re-read through its schema carries a new array of the same conditions.
    && (a.conditions === b.conditions || deepEqual(a.conditions ?? [], b.conditions ?? []));
}
