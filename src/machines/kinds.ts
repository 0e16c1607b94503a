// Every kind metalfleet runs, in the order their CRDs are generated. Adding a kind is adding its
// folder's kind.ts here (and its adapter); the CRDs, buckets and command checks follow from it.
import type { CustomResource } from '../api/crd/index.ts';
import { BMH_KIND_DEFINITION } from './bmh/kind.ts';
import type { CompanionKindDefinition } from './companion.ts';
import { objectKey, type DependentRule } from './dependents.ts';
import { FIRMWARE_SCHEMA_KIND_DEFINITION } from './firmware-schema/kind.ts';
import { HARDWARE_DATA_KIND_DEFINITION } from './hardware-data/kind.ts';
import { HOST_FIRMWARE_COMPONENTS_KIND_DEFINITION } from './host-firmware-components/kind.ts';
import { HOST_FIRMWARE_SETTINGS_KIND_DEFINITION } from './host-firmware-settings/kind.ts';
import { HOST_UPDATE_POLICY_KIND_DEFINITION } from './host-update-policy/kind.ts';
import type { RegisteredKind } from './kind.ts';
import { MAAS_CLUSTER_KIND_DEFINITION } from './maas-cluster/kind.ts';
import { MAAS_MACHINE_KIND_DEFINITION } from './maas-machine/kind.ts';

/**
 * The kinds no actor of their own drives: each is read and written by the actor of the object it
 * belongs to (machines/companion.ts), BareMetalHost's BMO companions.
 */
export const COMPANION_KINDS: readonly CompanionKindDefinition[] = [
  HARDWARE_DATA_KIND_DEFINITION,
  FIRMWARE_SCHEMA_KIND_DEFINITION,
  HOST_FIRMWARE_SETTINGS_KIND_DEFINITION,
  HOST_FIRMWARE_COMPONENTS_KIND_DEFINITION,
  HOST_UPDATE_POLICY_KIND_DEFINITION,
];

// A host kind is woken by its companions that say so: their changes wake the hosts they belong
// to, through the same dependents index as every other link (so the host's kind.ts need not
// repeat what its companions declare).
function withCompanions(kind: RegisteredKind): RegisteredKind {
  const woken = COMPANION_KINDS.filter((c) => c.hostKind === kind.kind && c.wakesHost);
  if (woken.length === 0) return kind;
  const dependents: Record<string, readonly DependentRule[]> = { ...kind.dependents };
  for (const c of woken) {
    const rule: DependentRule = { from: (o) => c.hostsOf(o), to: (o) => [objectKey(o)] };
    dependents[c.kind] = [...(dependents[c.kind] ?? []), rule];
  }
  return { ...kind, dependents };
}

export const KINDS: readonly RegisteredKind[] = [
  BMH_KIND_DEFINITION,
  MAAS_MACHINE_KIND_DEFINITION,
  MAAS_CLUSTER_KIND_DEFINITION,
].map(withCompanions);

/** The custom resources metalfleet serves: every kind's, its own CRD first, then its companions'. */
export const CUSTOM_RESOURCES: readonly CustomResource[] = KINDS.flatMap((k) => [...k.resources, ...companionsOf(k.kind).flatMap((c) => c.resources)]);

/** The companion kind of this name, or undefined. */
export function companionNamed(kind: string): CompanionKindDefinition | undefined {
  return COMPANION_KINDS.find((k) => k.kind === kind);
}

/** The companions of a host kind, in registry order. */
export function companionsOf(hostKind: string): readonly CompanionKindDefinition[] {
  return COMPANION_KINDS.filter((k) => k.hostKind === hostKind);
}

/** The kind of this name, or undefined. */
export function kindNamed(kind: string): RegisteredKind | undefined {
  return KINDS.find((k) => k.kind === kind);
}

/**
 * The kind a user means by `name`, as kubectl reads a resource type: its kind, plural, singular or
 * a short name of its own CRD, in any case (`MaasMachine`, `maasmachines`, `bmh`); or undefined.
 */
export function kindCalled(name: string): RegisteredKind | CompanionKindDefinition | undefined {
  const wanted = name.toLowerCase();
  return [...KINDS, ...COMPANION_KINDS].find((k) => {
    const own = k.resources[0];
    return [k.kind, own.plural, own.singular, ...(own.shortNames ?? [])].some((n) => n.toLowerCase() === wanted);
  });
}

/** `BareMetalHost (bmh), MaasMachine, MaasCluster`: the kinds, for a message that refuses another. */
export function knownKindNames(o: { readonly actorsOnly?: boolean } = {}): string {
  return (o.actorsOnly === true ? KINDS : [...KINDS, ...COMPANION_KINDS]).map((k) => (k.resources[0].shortNames?.length ? `${k.kind} (${k.resources[0].shortNames.join(', ')})` : k.kind)).join(', ');
}

/** Every KV bucket some kind keeps objects in, once each. */
export function kindBuckets(): readonly string[] {
  return [...new Set([...KINDS, ...COMPANION_KINDS].flatMap((k) => Object.values(k.buckets)))];
}
