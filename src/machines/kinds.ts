// Every kind metalfleet runs, in the order their CRDs are generated. Adding a kind is adding its
// folder's kind.ts here (and its adapter); the CRDs, buckets and command checks follow from it.
import type { CustomResource } from '../api/crd/index.ts';
import { BMH_KIND_DEFINITION } from './bmh/kind.ts';
import type { RegisteredKind } from './kind.ts';
import { MAAS_CLUSTER_KIND_DEFINITION } from './maas-cluster/kind.ts';
import { MAAS_MACHINE_KIND_DEFINITION } from './maas-machine/kind.ts';

export const KINDS: readonly RegisteredKind[] = [
  BMH_KIND_DEFINITION,
  MAAS_MACHINE_KIND_DEFINITION,
  MAAS_CLUSTER_KIND_DEFINITION,
];

/** The custom resources metalfleet serves: every kind's, its own CRD first. */
export const CUSTOM_RESOURCES: readonly CustomResource[] = KINDS.flatMap((k) => k.resources);

/** The kind of this name, or undefined. */
export function kindNamed(kind: string): RegisteredKind | undefined {
  return KINDS.find((k) => k.kind === kind);
}

/**
 * The kind a user means by `name`, as kubectl reads a resource type: its kind, plural, singular or
 * a short name of its own CRD, in any case (`MaasMachine`, `maasmachines`, `bmh`); or undefined.
 */
export function kindCalled(name: string): RegisteredKind | undefined {
  const wanted = name.toLowerCase();
  return KINDS.find((k) => {
    const own = k.resources[0];
    return [k.kind, own.plural, own.singular, ...(own.shortNames ?? [])].some((n) => n.toLowerCase() === wanted);
  });
}

/** `BareMetalHost (bmh), MaasMachine, MaasCluster`: the kinds, for a message that refuses another. */
export function knownKindNames(): string {
  return KINDS.map((k) => (k.resources[0].shortNames?.length ? `${k.kind} (${k.resources[0].shortNames.join(', ')})` : k.kind)).join(', ');
}

/** Every KV bucket some kind keeps objects in, once each. */
export function kindBuckets(): readonly string[] {
  return [...new Set(KINDS.flatMap((k) => Object.values(k.buckets)))];
}
