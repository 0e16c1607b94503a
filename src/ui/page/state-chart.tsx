// Hosts per state over time as stacked bars, drawn by uPlot. uPlot has no stacking of its own:
// each series is the cumulative count up to its state, drawn tallest first, so each bar's
// visible band is that state's count.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { stateColour } from './format.ts';
import type { Picture } from './types.ts';

function stateNames(p: Picture): string[] {
  const names = p.states.map(([s]) => s);
  for (const point of p.history) for (const s of Object.keys(point.states)) if (!names.includes(s)) names.push(s);
  return names;
}

function stacked(p: Picture, names: readonly string[]): uPlot.AlignedData {
  const xs = p.history.map((h) => h.at / 1_000);
  const sums = names.map(() => [] as number[]);
  p.history.forEach((h, i) => {
    let total = 0;
    names.forEach((s, k) => {
      total += h.states[s] ?? 0;
      (sums[k] as number[])[i] = total;
    });
  });
  // Tallest (all states) first: uPlot draws in series order.
  return [xs, ...sums.reverse()];
}

export function StateChart({ picture }: { picture: Picture }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<{ chart: uPlot; names: string } | null>(null);
  const names = stateNames(picture);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const key = names.join('|');
    const data = stacked(picture, names);
    if (plot.current && plot.current.names === key) {
      plot.current.chart.setData(data);
      return;
    }
    plot.current?.chart.destroy();
    const bars = uPlot.paths.bars?.({ size: [0.85, 120] });
    const series: uPlot.Series[] = [{}, ...[...names].reverse().map((s) => ({
      label: s, stroke: stateColour(s, names), fill: stateColour(s, names), width: 0, paths: bars, points: { show: false },
    }))];
    const chart = new uPlot({
      width: Math.max(320, el.clientWidth), height: 220, series,
      axes: [{}, { label: 'hosts' }],
      scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      legend: { show: true, live: false },
    }, data, el);
    plot.current = { chart, names: key };
  });
  useEffect(() => () => plot.current?.chart.destroy(), []);
  return <div class="chart" ref={box} data-testid="state-chart" />;
}
