// What a kind declares about itself, in one place (DESIGN "One skeleton, every kind"): the CRDs
// it serves, the KV buckets its objects live in, the commands it takes and its pure rules, whose
// view() is what introspection shows. The CRD generator, the KV stores, the command handler and
// the generic machine actor read these declarations; a new kind is a folder under src/machines
// with a kind.ts, listed in kinds.ts, plus the adapter that drives its backend.
import type { HostCommandName } from '../api/index.ts';
import type { CustomResource } from '../api/crd/index.ts';
import type { CommandIntent } from './command-intent.ts';
import type { Dependents, KindObject } from './dependents.ts';
import type { MachineLogic, MachineView } from './logic.ts';

export type { CommandDecision, CommandIntent, KindCommand, StoreWrite } from './command-intent.ts';
export type { DependentRule, Dependents, KindObject, LinkValues } from './dependents.ts';

/**
 * The KV buckets a kind's objects live in: spec and metadata (what users apply) in `spec`, status
 * and its writer's fence in `status`, as the API server keeps them apart. Kinds may share buckets
 * (the MAAS kinds do): their keys are then prefixed with the kind (adapters/store/kv-layouts.ts).
 */
export interface KindBuckets {
  readonly spec: string;
  readonly status: string;
}

export interface KindDefinition<S = unknown, E = unknown, F = unknown> {
  /** As in manifests; the first of `resources` is this kind's own CRD. */
  readonly kind: string;
  /** The CRDs the kind serves: its own first, then companions (a MaasMachineTemplate). */
  readonly resources: readonly [CustomResource, ...CustomResource[]];
  /** Where its objects are kept on a KV substrate (memory or NATS JetStream). */
  readonly buckets: KindBuckets;
  /** The commands it takes; any other is refused with this list in the message. */
  readonly commands: readonly HostCommandName[];
  /** Its pure machine; `view` is what `hosts`, `inspect` and `top` show of a state. */
  readonly logic: MachineLogic<S, E, F, MachineView>;
  /**
   * The key its objects are sharded by: `namespace/name`, or `namespace/cluster` for a kind whose
   * objects one owner must drive together (a Cluster API cluster's machines and its DNS record).
   */
  shardKey(object: KindObject): string;
  /** Which changes of other objects wake its objects, answered from the kind host's index. */
  readonly dependents: Dependents;
  /** How each of `commands` becomes a write to its object in the store; absent with no commands. */
  readonly commandIntent?: CommandIntent;
  /** Why it takes no commands, for the refusal of one (what to do instead). */
  readonly noCommandsReason?: string;
  /**
   * The actor binding that hosts it, by the binding's name ('host', 'maas'): bindings live in
   * src/actors (they perform I/O and name actors), which machines may not import, so a kind
   * names its binding and the binding carries the same name.
   */
  readonly binding: string;
}

/** A kind as the registry holds it: its machine seen only through what every caller may ask. */
export interface RegisteredKind extends Omit<KindDefinition, 'logic'> {
  readonly logic: { readonly kind: string; view(state: never): MachineView; isGone(state: never): boolean };
}

/** Identity, checked: `resources[0]` must be the kind's own CRD and `logic` must be its logic. */
export function defineKind<S, E, F>(definition: KindDefinition<S, E, F>): KindDefinition<S, E, F> {
  const own = definition.resources[0];
  if (own.kind !== definition.kind) throw new TypeError(`kind ${definition.kind}: its first resource is ${own.kind}; list its own CRD first`);
  if (definition.logic.kind !== definition.kind) throw new TypeError(`kind ${definition.kind}: its logic is ${definition.logic.kind}'s`);
  if (definition.commands.length > 0 && !definition.commandIntent) throw new TypeError(`kind ${definition.kind}: it takes ${definition.commands.join(', ')} but declares no commandIntent`);
  return definition;
}
