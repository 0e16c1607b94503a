import { z } from 'zod';
import { ApiObject, BMH_API_VERSION, BareMetalHost, BareMetalHostSpec, BareMetalHostStatus, type ObjectMeta } from '../../api/index.ts';
import { OBJECT_STATUS_BUCKET, OBJECTS_BUCKET } from '../../machines/buckets.ts';
import { companionNamed, kindNamed } from '../../machines/kinds.ts';
import type { HostCompanionKind, ResourceKind } from '../../ports/index.ts';
import { HOST_COMPANION_KINDS } from '../../ports/index.ts';

// Where and how each kind's records live on KV: the one layout every kind shares (issue 29.1).
// Two records per object, the same key in two buckets, as the API server keeps spec and status
// apart: a user's apply and the controller's status write never race on one revision, and a
// status write wakes no spec watcher.
//   spec bucket    the object without status: apiVersion, kind, metadata (uid, generation,
//                  creationTimestamp, labels, annotations, finalizers, deletionTimestamp), spec,
//                  and fence?: the highest shard fence that has written this record.
//   status bucket  {uid?, status, fence?}: the last status, the incarnation (uid) it belongs to,
//                  and the highest fence that has written it.
// Key: `<namespace>.<name>` escaped (nats-keys.ts), prefixed `<Kind>.` where kinds share buckets.
// resourceVersion is not stored: it is the spec record's KV revision.

export const FenceRecord = z.object({ epoch: z.number().int(), shard: z.number().int(), holder: z.string() });
export type FenceRecord = z.infer<typeof FenceRecord>;

/** A spec record as the engine handles it, whatever the kind (its schema checks the rest). */
export interface SpecRecord {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
  readonly spec?: unknown;
  readonly fence?: FenceRecord | undefined;
  /** The status an older node kept inside the object record (one bucket); shown until a status write. */
  readonly legacyStatus?: Record<string, unknown> | undefined;
}

export interface StatusRecord {
  readonly uid?: string | undefined;
  readonly status: Record<string, unknown>;
  readonly fence?: FenceRecord | undefined;
}

export interface KvLayout {
  readonly kind: ResourceKind;
  readonly specBucket: string;
  readonly statusBucket: string;
  /** Before every key of this kind in its buckets: '' when the buckets are the kind's alone. */
  readonly prefix: string;
  readonly spec: z.ZodType<SpecRecord>;
  readonly status: z.ZodType<StatusRecord>;
  /**
   * Whether a status change is told to watchers. A host's status is its own actor's and nobody
   * else's business (and every node sees every host's status writes: not parsing them is most of
   * a busy node's saving); a MaasCluster's or a Cluster's status is what its MaasMachines wait on.
   */
  readonly tellsStatus: boolean;
  /** The schema a top-level spec field set by a patch or intent is checked against; undefined: not a field. */
  specField(field: string): z.ZodType | undefined;
  /** A status given in a manifest is taken on create (Cluster API objects carry what their controllers wrote). */
  readonly statusOnCreate: boolean;
}

const HostSpecRecord = BareMetalHost.omit({ status: true }).extend({ fence: FenceRecord.optional() });
const HostStatusRecord = z.object({ uid: z.string().optional(), status: BareMetalHostStatus, fence: FenceRecord.optional() });

// An object record an older node wrote held the whole object and its fence in one value
// ({object, fence}); it reads as a spec record carrying its status until the next status write.
const ObjectSpecRecord = z.preprocess((value) => {
  if (value === null || typeof value !== 'object' || !('object' in value)) return value;
  const { object, fence } = value as { object?: unknown; fence?: unknown };
  if (object === null || typeof object !== 'object') return value;
  const { status, ...rest } = object as { status?: unknown };
  return { ...rest, ...(fence !== undefined ? { fence } : {}), ...(status !== undefined ? { legacyStatus: status } : {}) };
}, ApiObject.omit({ status: true }).extend({ fence: FenceRecord.optional(), legacyStatus: z.record(z.string(), z.unknown()).optional() }));
const ObjectStatusRecord = z.object({ uid: z.string().optional(), status: z.record(z.string(), z.unknown()), fence: FenceRecord.optional() });

const hostSpecFields = BareMetalHostSpec.shape as Readonly<Record<string, z.ZodType | undefined>>;
const anyField = z.unknown();

function bucketsOf(kind: string): { spec: string; status: string } {
  const declared = kindNamed(kind)?.buckets ?? companionNamed(kind)?.buckets;
  if (!declared) throw new TypeError(`kind ${kind} is not registered (machines/kinds.ts): its kind.ts names the buckets its objects live in`);
  return declared;
}

const HOST_LAYOUT: KvLayout = {
  kind: 'BareMetalHost',
  specBucket: bucketsOf('BareMetalHost').spec,
  statusBucket: bucketsOf('BareMetalHost').status,
  prefix: '',
  spec: HostSpecRecord as unknown as z.ZodType<SpecRecord>,
  status: HostStatusRecord as unknown as z.ZodType<StatusRecord>,
  tellsStatus: false,
  specField: (field) => hostSpecFields[field],
  statusOnCreate: false,
};

function objectLayout(kind: 'MaasMachine' | 'MaasCluster' | 'Machine' | 'Cluster' | HostCompanionKind, buckets: { spec: string; status: string }, statusOnCreate: boolean, tellsStatus = true): KvLayout {
  return {
    kind,
    specBucket: buckets.spec,
    statusBucket: buckets.status,
    prefix: `${kind}.`,
    spec: ObjectSpecRecord as unknown as z.ZodType<SpecRecord>,
    status: ObjectStatusRecord,
    tellsStatus,
    // The kind's validator checks the whole object on apply; a patch sets what its actor wrote.
    specField: () => anyField,
    statusOnCreate,
  };
}

// Cluster API's own kinds are read here, never run: they live beside the MAAS kinds that read them.
const CAPI_BUCKETS = { spec: OBJECTS_BUCKET, status: OBJECT_STATUS_BUCKET };

// A host's companions (machines/companion.ts) live with the hosts: every node that keeps hosts
// keeps them. Their status is what the host's actor wrote, told to nobody, as a host's own.
export const COMPANION_LAYOUTS: readonly KvLayout[] = HOST_COMPANION_KINDS.map((kind) => objectLayout(kind, bucketsOf(kind), false, false));

/** Every kind the KV store keeps with the hosts, BareMetalHost first, then its companions. */
export const HOST_LAYOUTS: readonly KvLayout[] = [HOST_LAYOUT, ...COMPANION_LAYOUTS];
export const OBJECT_LAYOUTS: readonly KvLayout[] = [
  objectLayout('MaasMachine', bucketsOf('MaasMachine'), false),
  objectLayout('MaasCluster', bucketsOf('MaasCluster'), false),
  objectLayout('Machine', CAPI_BUCKETS, true),
  objectLayout('Cluster', CAPI_BUCKETS, true),
];

/** apiVersion and kind of what the object layouts keep (v1beta1 and v1beta2 of Cluster API's own). */
const OBJECT_TYPES: Readonly<Record<string, ResourceKind>> = {
  'infrastructure.cluster.x-k8s.io/v1beta1 MaasMachine': 'MaasMachine',
  'infrastructure.cluster.x-k8s.io/v1beta1 MaasCluster': 'MaasCluster',
  'cluster.x-k8s.io/v1beta1 Machine': 'Machine',
  'cluster.x-k8s.io/v1beta2 Machine': 'Machine',
  'cluster.x-k8s.io/v1beta1 Cluster': 'Cluster',
  'cluster.x-k8s.io/v1beta2 Cluster': 'Cluster',
  ...Object.fromEntries(HOST_COMPANION_KINDS.map((kind) => [`${BMH_API_VERSION} ${kind}`, kind])),
};

/** Whether the kind is a host's companion (kept with the hosts, not with the MAAS kinds). */
export function isHostCompanion(kind: string): kind is HostCompanionKind {
  return (HOST_COMPANION_KINDS as readonly string[]).includes(kind);
}

/** The object kind (not BareMetalHost: apply validates hosts its own way) a manifest object is kept as, or null. */
export function storedKindOf(object: unknown): Exclude<ResourceKind, 'BareMetalHost' | 'Secret'> | null {
  if (object === null || typeof object !== 'object') return null;
  const o = object as { apiVersion?: unknown; kind?: unknown };
  return (OBJECT_TYPES[`${String(o.apiVersion)} ${String(o.kind)}`] as Exclude<ResourceKind, 'BareMetalHost' | 'Secret'> | undefined) ?? null;
}
