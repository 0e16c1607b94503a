// What the picture remembers between samples: the state counts over time (the stacked bar) and
// the provisioned count a window ago (the throughput).

/** About ten minutes at the default one-second interval; enough to see a fleet move. */
export const HISTORY_POINTS = 600;

export interface HistoryPoint {
  readonly at: number;
  readonly states: Readonly<Record<string, number>>;
}

export class PictureHistory {
  private readonly points: HistoryPoint[] = [];
  private readonly done: Array<{ at: number; provisioned: number }> = [];

  constructor(private readonly windowMs = 10_000, private readonly limit = HISTORY_POINTS) {}

  /** Adds a sample; returns hosts per second reaching provisioned over the window. */
  add(at: number, states: ReadonlyArray<readonly [string, number]>, provisioned: number): number {
    this.points.push({ at, states: Object.fromEntries(states) });
    if (this.points.length > this.limit) this.points.splice(0, this.points.length - this.limit);
    this.done.push({ at, provisioned });
    while (this.done.length > 1 && (this.done[1]?.at ?? at) <= at - this.windowMs) this.done.shift();
    const first = this.done[0];
    if (!first || first.at === at) return 0;
    return Math.max(0, (provisioned - first.provisioned) / ((at - first.at) / 1_000));
  }

  list(): HistoryPoint[] {
    return [...this.points];
  }
}
