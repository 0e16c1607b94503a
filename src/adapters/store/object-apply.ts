import { ApiObject, formatFieldPath, validateFirmwareSchema, validateHardwareData, validateHostFirmwareComponents, validateHostFirmwareSettings, validateHostUpdatePolicy, validateMaasCluster, validateMaasMachine } from '../../api/index.ts';
import { objectMetaErrors } from '../../api/names.ts';
import { objectSizeErrors } from '../../api/limits.ts';
import type { ResourceKind, StoredObject } from '../../ports/index.ts';
import { resourceKey } from '../../ports/index.ts';
import { nameOnCreate } from './generated-names.ts';
import { storedKindOf } from './kv-layouts.ts';
import { shownKey } from './nats-keys.ts';

// What apply checks of the objects of the MAAS side (MaasMachines, MaasClusters and the Cluster
// API objects they read) before anything is written: all or nothing. BareMetalHosts are checked by
// their own admission rules (validate.ts), which report files and lines.

export type StoredObjectKind = NonNullable<ReturnType<typeof storedKindOf>>;

/** A problem apply refuses an object for: which document (`index`), which object, which field. */
export interface ObjectIssue {
  readonly index: number;
  readonly kind?: string;
  readonly key?: string;
  readonly path: string;
  readonly message: string;
}

/** Validates one object of a kind; returns its problems (empty when valid). */
export type ObjectValidator = (object: unknown, old: unknown) => ReadonlyArray<{ path: string; reason: string }>;

export interface ObjectApplyResult {
  readonly ok: boolean;
  readonly issues: ObjectIssue[];
  readonly applied: number;
  /** What was written, in input order: `namespace/name`, the generated name for a generateName. */
  readonly objects?: ReadonlyArray<{ readonly kind: StoredObjectKind; readonly key: string }>;
}

export interface ReadyObject {
  readonly kind: StoredObjectKind;
  readonly key: string;
  readonly object: StoredObject;
  readonly generated: boolean;
}

export interface ObjectsSeen {
  /** Whether the store holds an object of this kind and key (parsed or not). */
  holds(kind: ResourceKind, key: string): boolean;
  /** The stored object, for a validator's update rules. */
  stored(kind: ResourceKind, key: string): StoredObject | undefined;
  readonly validators?: Partial<Record<ResourceKind, ObjectValidator>> | undefined;
}

export function checkObjects(input: readonly unknown[], seen: ObjectsSeen): { issues: ObjectIssue[]; ready: ReadyObject[] } {
  const issues: ObjectIssue[] = [];
  const ready: ReadyObject[] = [];
  const given = new Set<string>();
  input.forEach((raw, index) => {
    const found = storedKindOf(raw);
    // Named only by generateName: named now, once, as the API server names it on create.
    const named = found ? nameOnCreate(raw, (key) => given.has(`${found}/${key}`) || seen.holds(found, key)) : { object: raw, generated: false };
    const obj = named.object as Partial<StoredObject> | null;
    const kind = storedKindOf(obj);
    if (!obj || !kind || !obj.metadata?.name) {
      issues.push({ index, ...(obj?.kind ? { kind: String(obj.kind) } : {}), path: kind ? 'metadata.name' : 'kind', message: kind ? 'Required value: name or generateName is required' : `unsupported apiVersion/kind ${String(obj?.apiVersion)}/${String(obj?.kind)}` });
      return;
    }
    const object = { ...obj, metadata: { ...obj.metadata, namespace: obj.metadata.namespace ?? 'default' } } as StoredObject;
    const key = resourceKey(object);
    // The store's own checks, whatever validators it was given: what it could not key or hold
    // is refused here, naming the object, rather than failing at NATS.
    // A generated name's problems are its generateName's, reported at metadata.generateName.
    const mine = (e: { path: string }): boolean => !named.generated || e.path !== 'metadata.name';
    const own = [...objectSizeErrors(obj), ...objectMetaErrors(obj), ...shapeErrors(object)].filter(mine);
    if (own.length > 0) {
      for (const e of own) issues.push({ index, kind, key: shownKey(key), path: e.path, message: e.reason });
      return;
    }
    for (const e of (seen.validators?.[kind]?.(object, seen.stored(kind, key)) ?? []).filter(mine)) issues.push({ index, kind, key, path: e.path, message: e.reason });
    if (named.generated) given.add(`${kind}/${key}`);
    ready.push({ kind, key, object, generated: named.generated });
  });
  return { issues, ready };
}

// What the record schema would refuse (a malformed owner reference, labels that are not strings):
// refused by apply, naming the field, before anything is written.
function shapeErrors(object: StoredObject): Array<{ path: string; reason: string }> {
  const parsed = ApiObject.safeParse(object);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => ({ path: formatFieldPath(issue.path.filter((p): p is string | number => typeof p !== 'symbol')) || '(the object)', reason: issue.message }));
}

/** What apply checks the MAAS kinds with (their CRDs' rules), as a node and the embedded default open them. */
export const MAAS_VALIDATORS: Partial<Record<ResourceKind, ObjectValidator>> = { MaasMachine: validateMaasMachine, MaasCluster: validateMaasCluster };

/**
 * What apply checks a host's companions with (their CRDs' rules and BMO's webhook), always: the
 * store keeps them wherever it keeps hosts, so no caller has to remember to pass these.
 */
export const COMPANION_VALIDATORS: Partial<Record<ResourceKind, ObjectValidator>> = {
  HardwareData: validateHardwareData,
  FirmwareSchema: validateFirmwareSchema,
  HostFirmwareSettings: validateHostFirmwareSettings,
  HostFirmwareComponents: validateHostFirmwareComponents,
  HostUpdatePolicy: validateHostUpdatePolicy,
};
