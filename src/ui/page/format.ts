export { usageOf } from '../../api/pool-usage.ts';

export function duration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  const s = ms / 1_000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)}s`;
  const m = s / 60;
  if (m < 60) return `${Math.floor(m)}m${Math.floor(s % 60)}s`;
  const h = m / 60;
  return h < 48 ? `${Math.floor(h)}h${Math.floor(m % 60)}m` : `${Math.floor(h / 24)}d`;
}

const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

/** A steady colour per name: the same node or state keeps its colour across refreshes. */
export function colourOf(name: string, names: readonly string[]): string {
  const i = names.indexOf(name);
  return PALETTE[(i === -1 ? 0 : i) % PALETTE.length] ?? '#888';
}

const STATE_COLOURS: Record<string, string> = {
  provisioned: '#59a14f', Deployed: '#59a14f', available: '#4e79a7', Ready: '#4e79a7', provisioning: '#f28e2b', Deploying: '#f28e2b',
  inspecting: '#76b7b2', registering: '#b07aa1', preparing: '#edc948', deprovisioning: '#9c755f', 'powering off before delete': '#bab0ac',
  deleting: '#e15759', unreadable: '#e15759', error: '#e15759', 'Failed deployment': '#e15759',
};

export function stateColour(state: string, all: readonly string[]): string {
  return STATE_COLOURS[state] ?? colourOf(state, all);
}
