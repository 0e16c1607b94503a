import { isAlias, isMap, isScalar, isSeq, type Document, type Node } from 'yaml';

// Where a field of a parsed document is, from the field path an error names (`spec.bmc.address`,
// `spec.raid.softwareRAIDVolumes[1].level`, `metadata.annotations[reboot.metal3.io/x]`), so an
// error can say file:line:column as a compiler does. Positions are looked up only for an error
// (the chunk is parsed again then): keeping every node's position for every document would cost
// a 20 MB manifest its memory bound (manifest.ts).

export type Position = { readonly line: number; readonly column: number };

/** The segments of a path as field-error.ts formats it; a bracketed one may be a key or an index. */
export function pathSegments(path: string): string[] {
  const segments: string[] = [];
  // Bracketed keys (annotation and label names) hold no "]": Kubernetes allows none in them.
  for (const match of path.matchAll(/\[([^\]]*)\]|([^.[\]]+)/g)) segments.push(match[1] ?? match[2] ?? '');
  return segments;
}

type Ranged = { range?: [number, number, number] | null };

// The node of one step: a map's value for the key (the last of equal keys, as kubectl keeps the
// last), or a sequence's item. `at` is where the step is written: the key, or the item.
function step(node: unknown, segment: string): { node: unknown; at: number } | null {
  if (isMap(node)) {
    for (let i = node.items.length - 1; i >= 0; i -= 1) {
      const pair = node.items[i]!;
      // A key reads as its JSON name: `on` is the key "true", as kubectl sends it.
      if (isScalar(pair.key) && String(pair.key.value) === segment) return { node: pair.value, at: (pair.key as Ranged).range?.[0] ?? 0 };
    }
    return null;
  }
  if (isSeq(node) && /^\d+$/.test(segment)) {
    const item = node.items[Number(segment)] as (Node & Ranged) | undefined;
    return item === undefined || item === null ? null : { node: item, at: item.range?.[0] ?? 0 };
  }
  return null;
}

/**
 * The offset where `segments` is written in `root`; null when a step is absent (the caller names
 * the object then). An alias or a `<<` merge stops the walk at the field that holds it.
 */
export function fieldOffset(root: Document.Parsed['contents'] | Node, segments: readonly string[]): number | null {
  let node: unknown = root;
  let at: number | null = (root as Ranged | null)?.range?.[0] ?? null;
  for (const segment of segments) {
    if (isAlias(node)) return at;
    const next = step(node, segment);
    if (next === null) return null;
    node = next.node;
    at = next.at;
  }
  return at;
}
