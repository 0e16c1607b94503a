import { isAlias, isMap, isScalar, isSeq, visit, type Alias, type Document, type Node, type Pair, type YAMLMap } from 'yaml';

// `<<` merges as kubectl reads them (go-yaml v2): in order, and no more of them than it allows.
// manifest.ts finds the maps with a merge and calls these on a document its checks passed.

// go-yaml v2, which kubectl reads manifests with, applies a map's pairs in order, a `<<` writing
// each key of its map over what is already there (a list of maps from the last to the first, so
// the first wins among them); the yaml package lets a merged key only fill a gap, so a `<<`
// written after a key kept the key's value where kubectl sends the merged one. Each map with a
// `<<` gets the pairs it stands for instead, in go-yaml's order, and toJS keeps the last of a key.
// `merging` are the maps with a `<<` that structureProblem found, on a document it passed (no
// alias is inside its own anchor, so no merge is of itself) and excessiveAliasing passed.
export function applyMergesInOrder(doc: Document.Parsed, merging: readonly YAMLMap[], aliases: AliasTargets): void {
  anchorsOfTheirOwn(aliases);
  const expanded = new Map<YAMLMap, Pair[] | null>();
  // Each map's pairs are worked out before any is replaced: a map merged by another is read as written.
  const pairs = merging.map((map) => pairsOf(map, aliases.targets, expanded));
  for (const [i, map] of merging.entries()) {
    // A merge of something not a map stays, for toJS to refuse as kubectl does.
    const written = pairs[i];
    if (written !== null && written !== undefined) map.items = written;
  }
}

export type AliasTargets = {
  /** Each alias's node: the last one of its anchor's name before it, in the tree's order, as go-yaml and the yaml package find it. */
  readonly targets: ReadonlyMap<Alias, Node | undefined>;
  /** The nodes with an anchor, in the tree's order. */
  readonly anchored: ReadonlyArray<Node & { anchor: string }>;
};

// One walk, where the yaml package's resolve walks the tree once per alias.
export function aliasTargetsOf(doc: Document.Parsed): AliasTargets {
  const targets = new Map<Alias, Node | undefined>();
  const anchored: Array<Node & { anchor: string }> = [];
  const latest = new Map<string, Node>();
  visit(doc, (_key, node) => {
    if (isAlias(node)) targets.set(node, latest.get(node.source));
    else if (typeof (node as { anchor?: unknown } | null)?.anchor === 'string') {
      const named = node as Node & { anchor: string };
      latest.set(named.anchor, named);
      anchored.push(named);
    }
  });
  return { targets, anchored };
}

// Merged pairs put their nodes in the tree a second time, so with an anchor name given twice an
// anchored node merged in could stand between an alias and the node it meant (`k: &x one`,
// `c: &x two`, `<<: *b1` then `z: *x`: two, to go-yaml). Each node gets a name of its own and
// each alias that name first ("," cannot be in an anchor name).
function anchorsOfTheirOwn({ targets, anchored }: AliasTargets): void {
  if (new Set(anchored.map((node) => node.anchor)).size === anchored.length) return;
  for (const [i, node] of anchored.entries()) node.anchor = `${node.anchor},${i}`;
  for (const [alias, target] of targets) if (target?.anchor !== undefined) alias.source = target.anchor;
}

// go-yaml v2's guard against alias bombs (decode.go, allowedAliasRatio): it counts each node it
// decodes, and those it decodes inside an alias; past 100 of those and 1,000 in all, their share
// may be 99% up to 400,000 nodes, falling to 10% at 4,000,000, or kubectl refuses the document.
// Merges written out here escape the yaml package's own alias count, so a document with a `<<`
// is held to kubectl's: a chain of 99 merges took 20 s where kubectl refuses it in one.
export function excessiveAliasing(doc: Document.Parsed, targets: ReadonlyMap<Alias, Node | undefined>): { offset: number; message: string } | null {
  let decoded = 1;
  let aliased = 0;
  // `via`: where the outermost alias being expanded is written, for the message.
  const stack: Array<{ node: unknown; via: number | null }> = [{ node: doc.contents, via: null }];
  while (stack.length > 0) {
    const { node, via } = stack.pop()!;
    if (node === null || node === undefined) continue;
    decoded += 1;
    if (via !== null) aliased += 1;
    if (aliased > 100 && decoded > 1_000 && aliased / decoded > allowedAliasRatio(decoded)) {
      return { offset: via ?? 0, message: 'aliases expand the document too far (kubectl refuses it too: "document contains excessive aliasing")' };
    }
    const next: Array<{ node: unknown; via: number | null }> = [];
    if (isAlias(node)) next.push({ node: targets.get(node), via: via ?? node.range?.[0] ?? 0 });
    else if (isMap(node)) {
      for (const pair of node.items) {
        // go-yaml decodes a merge's map(s), a list's from the last, and not the `<<` itself.
        if (isMerge(pair) && isSeq(pair.value)) next.push(...[...pair.value.items].reverse().map((item) => ({ node: item, via })));
        else if (isMerge(pair)) next.push({ node: pair.value, via });
        else next.push({ node: pair.key, via }, { node: pair.value, via });
      }
    } else if (isSeq(node)) next.push(...node.items.map((item) => ({ node: item, via })));
    for (let i = next.length - 1; i >= 0; i -= 1) stack.push(next[i]!);
  }
  return null;
}

function allowedAliasRatio(decoded: number): number {
  if (decoded <= 400_000) return 0.99;
  if (decoded >= 4_000_000) return 0.1;
  return 0.99 - 0.89 * ((decoded - 400_000) / 3_600_000);
}

export function isMerge(pair: Pair): boolean {
  // The merge tag resolves a plain `<<` to a symbol; a quoted "<<" is a string key, to kubectl too.
  return isScalar(pair.key) && typeof pair.key.value === 'symbol';
}

// A map's pairs with its merges written out; null when a merge is not of a map or maps. Each
// key's last pair only: a chain of merges then costs its distinct keys, not their copies.
function pairsOf(map: YAMLMap, targets: ReadonlyMap<Alias, Node | undefined>, expanded: Map<YAMLMap, Pair[] | null>): Pair[] | null {
  const known = expanded.get(map);
  if (known !== undefined) return known;
  const pairs: Pair[] = [];
  let ok = true;
  const resolved = (node: unknown): unknown => (isAlias(node) ? targets.get(node) : node);
  for (const pair of map.items) {
    if (!isMerge(pair)) {
      pairs.push(pair);
      continue;
    }
    const value = resolved(pair.value);
    const sources = isSeq(value) ? [...value.items].reverse().map(resolved) : [value];
    for (const source of sources) {
      const merged = isMap(source) ? pairsOf(source, targets, expanded) : null;
      if (merged === null) ok = false;
      else pairs.push(...merged);
    }
  }
  const result = ok ? lastOfEachKey(pairs) : null;
  expanded.set(map, result);
  return result;
}

function lastOfEachKey(pairs: readonly Pair[]): Pair[] {
  const seen = new Set<string>();
  const kept: Pair[] = [];
  for (let i = pairs.length - 1; i >= 0; i -= 1) {
    const pair = pairs[i]!;
    // Keys equal only as JSON keys (on and true) both stay, in order: toJS keeps the later.
    const id = isScalar(pair.key) ? `${typeof pair.key.value}:${String(pair.key.value)}` : null;
    if (id !== null && seen.has(id)) continue;
    if (id !== null) seen.add(id);
    kept.push(pair);
  }
  return kept.reverse();
}
