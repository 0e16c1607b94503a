// A companion kind: objects that belong to an object of another kind and are kept beside it
// (issue 31.3), as BMO's HardwareData, HostFirmwareSettings, HostFirmwareComponents,
// HostUpdatePolicy and FirmwareSchema belong to a BareMetalHost. No actor of their own drives
// them: the actor of the object they belong to reads and writes them, so they live on that
// object's shard. They go the one resource path all the same: CRDs, buckets, the stores, kubectl
// names and introspection come from this declaration, as a kind's come from its kind.ts.
import type { CustomResource } from '../api/crd/index.ts';
import type { KindBuckets } from './kind.ts';
import type { KindObject } from './dependents.ts';

export interface CompanionKindDefinition {
  /** As in manifests; the first of `resources` is its CRD. */
  readonly kind: string;
  readonly resources: readonly [CustomResource, ...CustomResource[]];
  /** Where its objects are kept on a KV substrate; companions share theirs, keys prefixed by kind. */
  readonly buckets: KindBuckets;
  /** The kind whose actor hosts it (reads it, writes it, is woken by it). */
  readonly hostKind: string;
  /** The binding of that kind's actors ('host'): a companion spawns no actor of its own. */
  readonly binding: string;
  /** Its shard key: its host's, so the host's actor and its companions share one owner. */
  shardKey(object: KindObject): string;
  /** The keys of the host objects it belongs to (`namespace/name`); none: it belongs to none yet. */
  hostsOf(object: KindObject): readonly string[];
  /**
   * Whether a change of it wakes its host's actor: a user's intent (settings, updates, policy)
   * does; what the host's actor writes itself (HardwareData, a schema) does not.
   */
  readonly wakesHost: boolean;
}

/** Identity, checked: `resources[0]` must be the kind's own CRD. */
export function defineCompanionKind(definition: CompanionKindDefinition): CompanionKindDefinition {
  const own = definition.resources[0];
  if (own.kind !== definition.kind) throw new TypeError(`companion kind ${definition.kind}: its first resource is ${own.kind}; list its own CRD first`);
  if (definition.hostKind === definition.kind) throw new TypeError(`companion kind ${definition.kind}: it cannot be its own host`);
  return definition;
}

/** A companion named as its host (`namespace/name`): it belongs to the host of its own key. */
export function sameNameAsHost(object: KindObject): readonly string[] {
  return [`${object.metadata.namespace}/${object.metadata.name}`];
}
