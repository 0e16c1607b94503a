import type { CapacityFigures } from '../../node/index.ts';
import type { FleetStats } from '../../node/index.ts';

const ORDER = ['registering', 'inspecting', 'preparing', 'available', 'provisioning', 'provisioned', 'externally provisioned', 'deprovisioning', 'unmanaged', 'deleting'] as const;

export interface ProgressFrame {
  readonly maas?: { machines: number; ready: number; dnsIps: readonly string[] } | null;
  readonly elapsedMs: number;
  readonly reached: number;
  readonly total: number;
  readonly stats: FleetStats;
  readonly capacity: CapacityFigures | null;
  /** How long ago `capacity` was answered. */
  readonly capacityAgeMs?: number;
  readonly hostsPerSecond: number;
}

// One plain line: for logs, pipes and CI.
export function progressLine(f: ProgressFrame): string {
  const states = ORDER.map((s) => [s, f.stats.count(s)] as const).filter(([, n]) => n > 0).map(([s, n]) => `${s}=${n}`).join(' ');
  const c = f.capacity?.totals;
  // A figure older than two seconds is the broker not answering: say so rather than repeat it.
  const stale = f.capacityAgeMs !== undefined && f.capacityAgeMs > 2_000 ? ` (${(f.capacityAgeMs / 1000).toFixed(0)}s old)` : '';
  const slots = c ? ` slots=${c.inUse} waiting=${c.waiting} stalled=${c.stallSeconds.toFixed(0)}s${stale}` : '';
  const maas = f.maas ? ` maas=${f.maas.ready}/${f.maas.machines} dns=${f.maas.dnsIps.length}` : '';
  return `[${(f.elapsedMs / 1000).toFixed(1)}s] done ${f.reached}/${f.total} ${states}${slots}${maas} ${f.hostsPerSecond.toFixed(0)} hosts/s`;
}

// A small redrawn panel for a terminal.
export function progressPanel(f: ProgressFrame, width = 78): string[] {
  const lines = [`metalfleet demo  ${(f.elapsedMs / 1000).toFixed(1)}s   ${f.reached}/${f.total} hosts at their target   ${f.hostsPerSecond.toFixed(0)} hosts/s`];
  const max = Math.max(1, ...ORDER.map((s) => f.stats.count(s)));
  for (const s of ORDER) {
    const n = f.stats.count(s);
    if (n === 0 && s !== 'provisioned') continue;
    const bar = '#'.repeat(Math.round((n / max) * Math.max(10, width - 36)));
    lines.push(`  ${s.padEnd(24)}${String(n).padStart(7)}  ${bar}`);
  }
  if (f.capacityAgeMs !== undefined && f.capacityAgeMs > 2_000) lines.push(`  slots: the broker has not answered for ${(f.capacityAgeMs / 1000).toFixed(0)}s; the figures below are that old`);
  for (const p of f.capacity?.pools ?? []) {
    const limit = Number.isFinite(p.limit) ? String(p.limit) : 'unlimited';
    lines.push(`  slots ${p.pool}: ${p.inUse}/${limit} in use, ${p.exempt} exempt, ${p.waiting} waiting, longest wait ${(p.longestWaitMs / 1000).toFixed(1)}s, stalled ${p.stallSeconds.toFixed(0)}s`);
  }
  if (f.maas) lines.push(`  MAAS machines ready ${f.maas.ready}/${f.maas.machines}; control-plane DNS: ${f.maas.dnsIps.join(' ') || '(none yet)'}`);
  const recent = f.stats.recentWarnings.slice(-3);
  if (recent.length > 0) lines.push(`  recent problems (${f.stats.warnings} in all):`);
  for (const w of recent) lines.push(`    ${`${w.host}: ${w.message}`.slice(0, width - 4)}`);
  return lines;
}
