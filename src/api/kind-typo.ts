// A kind that is almost one metalfleet knows is a typo, not another resource: applying or
// validating it as "not ours, skipped" would exit 0 with nothing done (issue 19.6).
import { BMH_COMPANION_KINDS } from './bmh/companions/kinds.ts';
import { BMH_KIND } from './bmh/schema.ts';
import { MAAS_KINDS } from './maas/constants.ts';

/** Every kind metalfleet reads from manifests: its own, the Cluster API ones it reads, Secrets. */
export const KNOWN_KINDS: readonly string[] = [BMH_KIND, ...BMH_COMPANION_KINDS, ...MAAS_KINDS, 'Machine', 'Cluster', 'Secret'];

/** Edits (insert, delete, substitute, swap two neighbours) between a and b, stopping past max. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((rows[i - 1]?.[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (rows[i - 1]?.[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      row.push(best);
    }
    rows.push(row);
  }
  return rows[a.length]?.[b.length] ?? max + 1;
}

/**
 * The known kind `kind` is a misspelling of (another case, or at most two edits away), or null
 * when it is one of them exactly or nothing like them (a ConfigMap is simply not ours).
 */
export function misspelledKind(kind: string): string | null {
  if (KNOWN_KINDS.includes(kind)) return null;
  const lower = kind.toLowerCase();
  for (const known of KNOWN_KINDS) {
    if (known.toLowerCase() === lower || distance(kind, known, 2) <= 2) return known;
  }
  return null;
}
