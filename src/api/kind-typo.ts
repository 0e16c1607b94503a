// A kind that is almost one metalfleet knows is a typo, not another resource: applying or
// validating it as "not ours, skipped" would exit 0 with nothing done (issue 19.6).
import { BMH_COMPANION_KINDS } from './bmh/companions/kinds.ts';
import { BMH_API_VERSION, BMH_KIND } from './bmh/schema.ts';
import { MAAS_API_GROUP, MAAS_API_VERSION, MAAS_KINDS } from './maas/constants.ts';

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

const BMH_GROUP = BMH_API_VERSION.split('/')[0] ?? '';
const METAL3_KINDS: readonly string[] = [BMH_KIND, ...BMH_COMPANION_KINDS];
const MAAS_KIND_NAMES: readonly string[] = MAAS_KINDS;

// Whether `apiVersion` is a slip for one of `expected` group's (the group is its part before "/"):
// none (a core version, where none of these kinds is served: `v1`, `metal3.io.v1alpha1`), or a
// group of the same first label or domain (`metal3/v1alpha1`, `cluster.x-k8s.io/v1beta1` for a
// MaasMachine), or two edits from it. Another API's group (`example.com/v1`) is no slip: its kind
// of the same name is not ours, and stays skipped.
function slipOf(apiVersion: string, expected: string): boolean {
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return true;
  const group = apiVersion.slice(0, slash).toLowerCase();
  const labels = expected.split('.');
  const domain = labels.slice(-2).join('.');
  return group.split('.')[0] === labels[0] || group === domain || group.endsWith(`.${domain}`) || distance(group, expected, 2) <= 2;
}

/**
 * Why `apiVersion` cannot be the one meant for `kind`, one of metalfleet's own (a BareMetalHost,
 * its companions, the MAAS kinds) or a Secret; null when it can, or when it names another API's
 * group (slipOf). Such an object was skipped as "not managed by metalfleet": apply exited 0
 * without the host, demo -f and a node's --secrets went on without the Secret. kubectl refuses it
 * ("no matches for kind"). A missing apiVersion of metalfleet's kinds is their validation's to name.
 */
export function misgroupedKind(apiVersion: string | undefined, kind: string): string | null {
  const meant = (expected: string): string => `Unsupported value: ${JSON.stringify(apiVersion ?? '')}: no kind ${kind} is served there (kubectl finds no match either); did you mean ${expected}?`;
  const check = (expected: string, group: string): string | null => (apiVersion === undefined || apiVersion.startsWith(`${group}/`) || !slipOf(apiVersion, group) ? null : meant(expected));
  if (METAL3_KINDS.includes(kind)) return check(BMH_API_VERSION, BMH_GROUP);
  if (MAAS_KIND_NAMES.includes(kind)) return check(MAAS_API_VERSION, MAAS_API_GROUP);
  if (kind !== 'Secret' || apiVersion === 'v1') return null;
  if (apiVersion === undefined) return 'Required value: a Secret is apiVersion v1';
  // A Secret of a group is another API's kind.
  return apiVersion.includes('/') ? null : meant('v1');
}
