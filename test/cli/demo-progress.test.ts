// The demo's progress output: the capacity figures say how long a pool stalled, and figures the
// broker has not refreshed for a while say how old they are instead of passing for current.
import test from 'ava';
import { progressLine, progressPanel, type ProgressFrame } from '../../src/cli/demo/progress.ts';
import type { FleetStats } from '../../src/node/index.ts';
import type { PoolFigures } from '../../src/actors/capacity/index.ts';
import { totalsOf } from '../../src/actors/capacity/figures.ts';

const stats = { count: (s: string) => (s === 'available' ? 7 : 0), recentWarnings: [], warnings: 0 } as unknown as FleetStats;
const pool = (stallSeconds: number): PoolFigures => ({ pool: 'fixture:default', limit: 200, inUse: 200, exempt: 0, waiting: 5_000, longestWaitMs: 2_000, stallSeconds, holders: [], queue: [] });
const frame = (stallSeconds: number, capacityAgeMs: number): ProgressFrame => {
  const pools = [pool(stallSeconds)];
  return { elapsedMs: 12_000, reached: 10, total: 100, stats, capacity: { pools, totals: totalsOf(pools) }, capacityAgeMs, hostsPerSecond: 1 };
};

test('demo progress - the line gives exact slot figures and the seconds a pool stalled', (t) => {
  t.regex(progressLine(frame(0, 100)), / slots=200 waiting=5000 stalled=0s 1 hosts\/s$/);
  t.regex(progressLine(frame(12.4, 100)), / stalled=12s /);
});

test('demo progress - figures the broker has not refreshed for seconds say how old they are', (t) => {
  t.notRegex(progressLine(frame(0, 1_500)), /old\)/);
  t.regex(progressLine(frame(0, 9_000)), / stalled=0s \(9s old\) /);
  const panel = progressPanel(frame(3, 9_000));
  t.true(panel.some((l) => l.includes('the broker has not answered for 9s')), panel.join('\n'));
  t.true(panel.some((l) => /slots fixture:default: 200\/200 in use, 0 exempt, 5000 waiting, longest wait 2\.0s, stalled 3s/.test(l)), panel.join('\n'));
});
