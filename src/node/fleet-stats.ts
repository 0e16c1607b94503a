import type { BareMetalHostStatus } from '../api/index.ts';
import { BMH_KIND } from '../api/index.ts';
import type { HostStatusObserver } from '../actors/host/index.ts';
import type { MachineChange } from '../actors/machine/index.ts';
import { enteredBefore } from '../machines/logic.ts';
import type { MachineView, ViewCondition } from '../machines/logic.ts';

/** What the node keeps of one object it drives: its newest view, since when in its state, its shard. */
export interface MachineSummary extends MachineView {
  readonly kind: string;
  readonly poweredOn: boolean;
  readonly errorType: string;
  /** The view's own array (not a copy): introspection lists it on request. */
  readonly conditions?: readonly ViewCondition[] | undefined;
  /** When (clock ms) it entered `state`. */
  readonly since: number;
  readonly shard: number;
}

/** A BareMetalHost's summary, as the demo's end check and the benchmarks read it. */
export type HostSummary = MachineSummary;

/** One kind's figures on this node. */
export class KindFigures {
  readonly byState = new Map<string, number>();
  readonly objects = new Map<string, MachineSummary>();
  /** State changes, by from and to (a first look and a view change within a state are none). */
  readonly moves = new Map<string, Map<string, number>>();
  transitions = 0;

  count(state: string): number {
    return this.byState.get(state) ?? 0;
  }

  add(state: string, n: number): void {
    this.byState.set(state, (this.byState.get(state) ?? 0) + n);
  }

  moved(from: string, to: string): void {
    this.transitions += 1;
    const row = this.moves.get(from) ?? new Map<string, number>();
    row.set(to, (row.get(to) ?? 0) + 1);
    this.moves.set(from, row);
  }
}

// Live per-kind, per-state counts and a summary per object, fed by the node's change stream
// (every kind's actors report there alike): what `hosts`, `top`, the page, the metrics, the
// demo's progress line and end check and the benchmarks read. Beside it, what only a
// BareMetalHost reports (its status, its warnings) passes through to followers (BMO's metrics).
export class FleetStats implements HostStatusObserver {
  readonly kinds = new Map<string, KindFigures>();
  transitions = 0;
  goneCount = 0;
  warnings = 0;
  // The newest warnings, for a live view; logs keep the full record.
  readonly recentWarnings: Array<{ at: number; host: string; reason: string; message: string }> = [];
  private listeners: Array<(key: string, kind: string) => void> = [];
  private followers: HostStatusObserver[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** One kind's figures (empty until one of its objects reports). */
  of(kind: string): KindFigures {
    let figures = this.kinds.get(kind);
    if (!figures) {
      figures = new KindFigures();
      this.kinds.set(kind, figures);
    }
    return figures;
  }

  /** The BareMetalHosts driven here, by key. */
  get hosts(): ReadonlyMap<string, HostSummary> {
    return this.of(BMH_KIND).objects;
  }

  /** BareMetalHosts by provisioning state. */
  get byState(): ReadonlyMap<string, number> {
    return this.of(BMH_KIND).byState;
  }

  /** BareMetalHosts in `state`. */
  count(state: string): number {
    return this.of(BMH_KIND).count(state);
  }

  /** One report of the change stream. */
  changed(change: MachineChange, shard: number): void {
    const figures = this.of(change.kind);
    const before = figures.objects.get(change.key);
    if (change.to === null) {
      if (!before) return;
      this.drop(figures, change.key, before);
      this.goneCount += 1;
      this.notify(change.key, change.kind);
      return;
    }
    // What this node held, not `from`, is undone: a restarted actor's first look says from null.
    if (before) figures.add(before.state, -1);
    figures.add(change.to, 1);
    if (change.from !== null && change.from !== change.to) {
      this.transitions += 1;
      figures.moved(change.from, change.to);
    }
    const view = change.view;
    // One shape for every summary (no optional spread): a hundred thousand of them stay small.
    figures.objects.set(change.key, {
      kind: change.kind, state: change.to, power: view.power, poweredOn: view.power === 'on',
      operationalStatus: view.operationalStatus, error: view.error, errorType: view.errorType ?? '',
      conditions: view.conditions,
      since: before !== undefined && before.state === change.to ? before.since : this.enteredAt(change),
      shard,
    });
    this.notify(change.key, change.kind);
  }

  // When an object entered its state: now for a transition seen here; for a first look (a new
  // owner, a restarted actor) the time its status records, else this look. Never in the future:
  // a stamp from a clock ahead of this node's would show a negative time in the state.
  private enteredAt(change: MachineChange): number {
    const now = this.now();
    return change.from !== null ? now : enteredBefore(change.view.enteredAt, now);
  }

  /** The shard left this node: its objects are another node's to report. */
  forgetShard(shard: number): void {
    for (const [kind, figures] of this.kinds) {
      for (const [key, summary] of figures.objects) {
        if (summary.shard !== shard) continue;
        this.drop(figures, key, summary);
        this.notify(key, kind);
      }
    }
  }

  statusRead(key: string, status: BareMetalHostStatus): void {
    for (const f of this.followers) f.statusRead(key, status);
  }

  // The slot a host waits for, as its actor tells it: passed on, not read here (node/ imports no kind).
  statusChanged(key: string, status: BareMetalHostStatus, waitingFor?: Parameters<HostStatusObserver['statusChanged']>[2]): void {
    for (const f of this.followers) f.statusChanged(key, status, waitingFor);
  }

  warning(host: string, reason: string, message: string): void {
    this.warnings += 1;
    this.recentWarnings.push({ at: Date.now(), host, reason, message });
    if (this.recentWarnings.length > 5) this.recentWarnings.shift();
    for (const f of this.followers) f.warning(host, reason, message);
  }

  /** Passes every host status report on to `observer` as well, until the returned function is called. */
  follow(observer: HostStatusObserver): () => void {
    this.followers.push(observer);
    return () => {
      this.followers = this.followers.filter((f) => f !== observer);
    };
  }

  /** Called with the key (and kind) of each object whose summary changed. */
  onChange(listener: (key: string, kind: string) => void): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  private drop(figures: KindFigures, key: string, summary: MachineSummary): void {
    figures.add(summary.state, -1);
    figures.objects.delete(key);
  }

  private notify(key: string, kind: string): void {
    for (const l of this.listeners) l(key, kind);
  }
}
