// Which changes of other objects wake a kind's objects, declared as data the kind host indexes
// (DESIGN "One skeleton, every kind"): a kind says how a changed object and its own objects are
// linked, never how to look them up, so the host answers "whom does this change wake" from its
// index and never lists the store.

/** What a link is computed from: an object's identity, labels, owners and spec, untyped. */
export interface KindObject {
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly labels?: Readonly<Record<string, string>> | undefined;
    readonly ownerReferences?: ReadonlyArray<{ readonly kind: string; readonly name: string }> | undefined;
  };
  readonly spec?: unknown;
}

/**
 * The values an object is known by in one link (each `namespace/name`-like); none: unlinked. Pure,
 * and total over an object with only its metadata's namespace and name: a deletion leaves only
 * the key to compute from.
 */
export type LinkValues = (object: KindObject) => readonly string[];

/**
 * One way a changed object wakes objects of the declaring kind, as a join: the changed object is
 * known by `from`, each object of the kind by `to`, and a change wakes every object sharing a
 * value with the changed object's values before or after the change. With `via`, the join goes
 * through objects of a third kind: the changed object wakes the `via` objects whose `via.to`
 * values it shares, and those wake the declaring kind's objects through their `via.from` values
 * (a Secret wakes the MaasMachine of the Machine whose bootstrap names it).
 */
export interface DependentRule {
  readonly from: LinkValues;
  readonly via?: { readonly kind: string; readonly to: LinkValues; readonly from: LinkValues };
  readonly to: LinkValues;
}

/** By the kind of the changed object: the rules its changes wake the declaring kind's objects by. */
export type Dependents = Readonly<Record<string, readonly DependentRule[]>>;

/** `namespace/name` of an object. */
export function objectKey(object: KindObject): string {
  return `${object.metadata.namespace}/${object.metadata.name}`;
}

/** `namespace/value` when value is a non-empty string, else no value. */
export function inNamespace(object: KindObject, value: unknown): readonly string[] {
  return typeof value === 'string' && value !== '' ? [`${object.metadata.namespace}/${value}`] : [];
}
