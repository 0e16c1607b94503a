// Shapes shared by the Kubernetes API test server's files: JSON objects as the server stores them
// and the resources it serves (CRD versions and the few built-in kinds).
import type { JsonSchema } from './schema.ts';

export type Obj = Record<string, unknown>;

export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object's metadata, created empty when missing (writes only on objects this server owns). */
export function metaOf(obj: Obj): Obj {
  if (!isObj(obj.metadata)) obj.metadata = {};
  return obj.metadata as Obj;
}

export function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function clone<T>(value: T): T {
  return structuredClone(value);
}

/** The built-in kinds served besides CRDs; each has its own rules in builtin-*.ts. */
export type BuiltinKind = 'secrets' | 'events' | 'namespaces' | 'leases' | 'customresourcedefinitions' | StoredOnlyKind;
/** Built-in kinds a provider's manifests hold that the server only stores (builtin.ts). */
export type StoredOnlyKind = 'serviceaccounts' | 'configmaps' | 'services' | 'deployments' | 'clusterroles' | 'clusterrolebindings'
  | 'poddisruptionbudgets' | 'validatingwebhookconfigurations' | 'mutatingwebhookconfigurations' | 'networkpolicies' | WorkloadKind;
/** Kinds served so that kubectl finds them (`apply --prune`'s allowlist, `get all`); stored only. */
export type WorkloadKind = 'pods' | 'endpoints' | 'persistentvolumeclaims' | 'persistentvolumes' | 'replicationcontrollers' | 'jobs' | 'cronjobs'
  | 'ingresses' | 'daemonsets' | 'replicasets' | 'statefulsets' | 'controllerrevisions' | 'endpointslices';

/** A CRD's additionalPrinterColumns entry. */
export interface PrinterColumn {
  readonly name: string;
  readonly type: string;
  readonly format?: string;
  readonly description?: string;
  readonly priority?: number;
  readonly jsonPath: string;
}

export interface VersionDef {
  readonly name: string;
  readonly storage: boolean;
  readonly schema: JsonSchema | undefined;
  /** subresources.status is set for this version. */
  readonly status: boolean;
  /** Field labels from selectableFields, e.g. `spec.color`. */
  readonly selectableFields: readonly string[];
  /** The openAPIV3Schema as written (descriptions kept), for /openapi. */
  readonly openApiSchema?: unknown;
  /** additionalPrinterColumns (CRDs only), for Table output. */
  readonly printerColumns?: readonly PrinterColumn[];
}

export interface ResourceDef {
  /** '' for the core group. */
  readonly group: string;
  readonly plural: string;
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /** Served versions, storage version included. */
  readonly versions: readonly VersionDef[];
  readonly builtin: BuiltinKind | undefined;
}

export function groupVersion(res: ResourceDef, version: string): string {
  return res.group ? `${res.group}/${version}` : version;
}

/** `baremetalhosts.metal3.io`, or the bare plural for the core group (kube-api.md §4). */
export function qualifiedResource(res: ResourceDef): string {
  return res.group ? `${res.plural}.${res.group}` : res.plural;
}

/** `BareMetalHost.metal3.io`, or the bare kind for the core group. */
export function qualifiedKind(res: ResourceDef): string {
  return res.group ? `${res.kind}.${res.group}` : res.kind;
}

const WITH_GENERATION: ReadonlySet<BuiltinKind | undefined> = new Set<BuiltinKind | undefined>([undefined, 'customresourcedefinitions', 'deployments', 'statefulsets',
  'poddisruptionbudgets', 'networkpolicies', 'validatingwebhookconfigurations', 'mutatingwebhookconfigurations']);

/** Custom resources, CRDs and the kinds whose strategies set it have `generation`; Secrets, Services… do not. */
export function hasGeneration(res: ResourceDef): boolean {
  return WITH_GENERATION.has(res.builtin);
}

/** Typed (built-in) objects: lists omit item apiVersion/kind, JSON keys keep Go struct order. */
export function isTyped(res: ResourceDef): boolean {
  return res.builtin !== undefined;
}

/** CRs and Leases refuse a PUT without resourceVersion; Secrets, Events, Namespaces allow it. */
export function requiresRvOnUpdate(res: ResourceDef): boolean {
  return res.builtin === undefined || res.builtin === 'leases' || res.builtin === 'customresourcedefinitions';
}

export function objectKey(namespace: string, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}
