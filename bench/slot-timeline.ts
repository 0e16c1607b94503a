// Where a cluster scale run's time goes, read at the backend: the fixture tells every gated call's
// open and close (onGate), so the bench knows when the first slot was used, how busy the slots
// were, and how long a slot sat idle between a release and the next grant, without asking the
// nodes (whose own figures could be late or wrong about exactly this).
import type { FixtureGateEvent } from '../src/adapters/fixture/index.ts';

interface Mark {
  readonly at: number;
  readonly busy: number;
  readonly opened: boolean;
}

export interface SlotTimeline {
  readonly onGate: (event: FixtureGateEvent) => void;
  /** Gated calls closed so far. */
  closed(): number;
  /** Figures in seconds from `startedAt` (performance.now() when the nodes were started). */
  figures(startedAt: number, limit: number): object;
}

export function slotTimeline(): SlotTimeline {
  const marks: Mark[] = [];
  let closed = 0;
  return {
    onGate(e) {
      marks.push({ at: performance.now(), busy: e.busy, opened: e.kind === 'opened' });
      if (e.kind === 'closed') closed++;
    },
    closed: () => closed,
    figures(startedAt, limit) {
      const first = marks.find((m) => m.opened);
      const last = marks.at(-1);
      if (first === undefined || last === undefined) return { firstGrantSeconds: null };
      let area = 0;
      for (let i = 1; i < marks.length; i++) area += marks[i - 1]!.busy * (marks[i]!.at - marks[i - 1]!.at);
      const span = last.at - first.at;
      const s = (ms: number): number => Number((ms / 1000).toFixed(2));
      return {
        firstGrantSeconds: s(first.at - startedAt),
        lastReleaseSeconds: s(last.at - startedAt),
        grantSpanSeconds: s(span),
        // Mean slots busy between the first grant and the last release, against the limit.
        slotUtilization: Number((area / (limit * span)).toFixed(3)),
        // Slot time left idle per gated call: (limit x span - busy time) / calls.
        idleSlotMsPerCall: Math.round((limit * span - area) / Math.max(1, closed)),
        // Mean slots busy in each second since the nodes started: where the slots sat idle.
        busyPerSecond: perSecond(marks, startedAt, last.at),
      };
    },
  };
}

function perSecond(marks: readonly Mark[], startedAt: number, until: number): number[] {
  const out: number[] = [];
  let level = 0;
  let i = 0;
  for (let from = startedAt; from < until; from += 1000) {
    const to = from + 1000;
    let t = from;
    let area = 0;
    for (; i < marks.length && marks[i]!.at < to; i++) {
      const at = Math.max(t, marks[i]!.at);
      area += level * (at - t);
      t = at;
      level = marks[i]!.busy;
    }
    area += level * (to - t);
    out.push(Math.round(area / 1000));
  }
  return out;
}
