import type { DependentRule, Dependents, KindObject } from '../../machines/kind.ts';

// The one dependents index of a shard (DESIGN "One skeleton, every kind"): built from what each
// kind declares (machines/dependents.ts), fed every store event the shard routes (the seed
// listing, then each watch event), it answers which objects a change wakes without reading the
// store. It names no kind: it joins link values, as each kind's rules compute them.

/** A kind as the index reads it: its name and its dependents declaration. */
export interface IndexedKind {
  readonly kind: string;
  readonly dependents: Dependents;
}

/** One store change: the object as it is now, or null when it was deleted. */
export interface IndexChange {
  readonly kind: string;
  readonly key: string;
  readonly object: KindObject | null;
}

/** By the woken kind, the keys of its objects a change wakes. */
export type Wakes = ReadonlyMap<string, ReadonlySet<string>>;

/** What an actor's router may ask the index: whom an object wakes, who links to an object. */
export interface DependentsReader {
  /** The objects of `kind` a change of `object` (of `source` kind) wakes, as it is now. */
  dependentsOf(source: string, object: KindObject, kind: string): readonly string[];
  /**
   * The keys of `source` objects whose changes wake `kind`'s object `key` by a direct rule (a
   * source known by its key alone is named whether or not it exists: look it up).
   */
  sourcesOf(kind: string, key: string, source: string): readonly string[];
}

export const NO_WAKES: Wakes = new Map();

/** Link values to keys and keys to link values, both ways. */
class Join {
  private readonly byValue = new Map<string, Set<string>>();
  private readonly byKey = new Map<string, readonly string[]>();

  set(key: string, values: readonly string[]): void {
    for (const v of this.byKey.get(key) ?? []) {
      const keys = this.byValue.get(v);
      keys?.delete(key);
      if (keys?.size === 0) this.byValue.delete(v);
    }
    if (values.length === 0) {
      this.byKey.delete(key);
      return;
    }
    this.byKey.set(key, values);
    for (const v of values) {
      const keys = this.byValue.get(v) ?? new Set<string>();
      keys.add(key);
      this.byValue.set(v, keys);
    }
  }

  keys(value: string): Iterable<string> {
    return this.byValue.get(value) ?? [];
  }

  values(key: string): readonly string[] | undefined {
    return this.byKey.get(key);
  }
}

interface Compiled {
  readonly dependent: string;
  readonly source: string;
  readonly rule: DependentRule;
  /** The changed (source) objects' values, kept only where the key alone does not give them. */
  readonly from: Join;
  readonly to: Join;
  readonly viaTo: Join;
  readonly viaFrom: Join;
}

export class DependentsIndex implements DependentsReader {
  private readonly rules: readonly Compiled[];
  private readonly tracked: ReadonlySet<string>;

  constructor(kinds: readonly IndexedKind[]) {
    this.rules = kinds.flatMap((k) => Object.entries(k.dependents).flatMap(([source, rules]) => rules.map((rule) => ({
      dependent: k.kind, source, rule, from: new Join(), to: new Join(), viaTo: new Join(), viaFrom: new Join(),
    }))));
    this.tracked = new Set(this.rules.flatMap((r) => [r.source, r.dependent, ...(r.rule.via ? [r.rule.via.kind] : [])]));
  }

  /** Whether some kind's rules read objects of this kind: only those are worth feeding. */
  tracks(kind: string): boolean {
    return this.tracked.has(kind);
  }

  /**
   * Takes one change into the index and answers whom it wakes: those linked to the object as it
   * was (an object that stops naming another still wakes it) and as it is now.
   */
  apply(change: IndexChange): Wakes {
    if (!this.tracked.has(change.kind)) return NO_WAKES;
    const wakes = new Map<string, Set<string>>();
    const asSource = this.rules.filter((r) => r.source === change.kind);
    for (const r of asSource) this.collect(wakes, r, this.fromValues(r, change.key));
    for (const r of this.rules) this.update(r, change);
    for (const r of asSource) this.collect(wakes, r, this.fromValues(r, change.key));
    return wakes;
  }

  dependentsOf(source: string, object: KindObject, kind: string): readonly string[] {
    const wakes = new Map<string, Set<string>>();
    for (const r of this.rules) if (r.source === source && r.dependent === kind) this.collect(wakes, r, r.rule.from(object));
    return [...(wakes.get(kind) ?? [])];
  }

  sourcesOf(kind: string, key: string, source: string): readonly string[] {
    const found = new Set<string>();
    for (const r of this.rules) {
      if (r.dependent !== kind || r.source !== source || r.rule.via) continue;
      for (const v of r.to.values(key) ?? []) {
        for (const k of r.from.keys(v)) found.add(k);
        // A source known by its key alone is not kept: it is the value itself.
        if (sameAsKey(r, v)) found.add(v);
      }
    }
    return [...found];
  }

  private update(r: Compiled, change: IndexChange): void {
    const { kind, key, object } = change;
    if (r.source === kind) {
      const values = object ? r.rule.from(object) : [];
      // Kept only when the key alone would not give them back (a deleted Secret is its key).
      r.from.set(key, sameValues(values, r.rule.from(keyOnly(key))) ? [] : values);
    }
    if (r.dependent === kind) r.to.set(key, object ? r.rule.to(object) : []);
    const via = r.rule.via;
    if (via?.kind === kind) {
      r.viaTo.set(key, object ? via.to(object) : []);
      r.viaFrom.set(key, object ? via.from(object) : []);
    }
  }

  private fromValues(r: Compiled, key: string): readonly string[] {
    return r.from.values(key) ?? r.rule.from(keyOnly(key));
  }

  private collect(wakes: Map<string, Set<string>>, r: Compiled, values: readonly string[]): void {
    if (values.length === 0) return;
    let woken = wakes.get(r.dependent);
    const add = (k: string): void => {
      woken ??= new Set();
      woken.add(k);
      wakes.set(r.dependent, woken);
    };
    for (const v of values) {
      if (!r.rule.via) {
        for (const k of r.to.keys(v)) add(k);
        continue;
      }
      for (const viaKey of r.viaTo.keys(v)) {
        for (const v2 of r.viaFrom.values(viaKey) ?? []) for (const k of r.to.keys(v2)) add(k);
      }
    }
  }
}

// An object known only by its key (`namespace/name`): what a deletion leaves to compute from.
function keyOnly(key: string): KindObject {
  const slash = key.indexOf('/');
  return { metadata: { namespace: key.slice(0, slash), name: key.slice(slash + 1) } };
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function sameAsKey(r: Compiled, value: string): boolean {
  return r.from.values(value) === undefined && sameValues(r.rule.from(keyOnly(value)), [value]);
}
