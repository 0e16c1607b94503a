// /openapi/v3 (the index and one document per group-version) and /openapi/v2, built from what the
// server serves right now: CRD versions from their openAPIV3Schema (descriptions kept), built-in
// kinds in v3 whole from client-node's models (builtin-openapi.ts), in v2 from their short schemas. kubectl reads v3 for `explain`, for strategic-merge patches, and to
// learn that PATCH takes `fieldValidation` (then it validates on the server only).
import { createHash } from 'node:crypto';
import { builtinKindSchemas } from './builtin-openapi.ts';
import type { Registry } from './registry.ts';
import { isObj } from './types.ts';
import type { Obj, ResourceDef, VersionDef } from './types.ts';

const META_REF = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

const BUILTIN_PREFIX: Record<string, string> = {
  '': 'io.k8s.api.core.v1',
  'coordination.k8s.io': 'io.k8s.api.coordination.v1',
  'apiextensions.k8s.io': 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1',
  apps: 'io.k8s.api.apps.v1',
  'discovery.k8s.io': 'io.k8s.api.discovery.v1',
  'rbac.authorization.k8s.io': 'io.k8s.api.rbac.v1',
  policy: 'io.k8s.api.policy.v1',
  'admissionregistration.k8s.io': 'io.k8s.api.admissionregistration.v1',
};

const KIND_DESCRIPTIONS: Record<string, string> = {
  Secret: 'Secret holds secret data of a certain type. The total bytes of the values in the Data field must be less than MaxSecretSize bytes.',
  Namespace: 'Namespace provides a scope for Names. Use of multiple namespaces is optional.',
  Event: 'Event is a report of an event somewhere in the cluster.',
  Lease: 'Lease defines a lease concept.',
  CustomResourceDefinition: 'CustomResourceDefinition represents a resource that should be exposed on the API server.  Its name MUST be in the format <.spec.name>.<.spec.group>.',
};

const FIELD_DESCRIPTIONS: Record<string, string> = {
  apiVersion: 'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
  kind: 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
  metadata: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
};

const OBJECT_META: Obj = {
  description: 'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Name must be unique within a namespace.' },
    generateName: { type: 'string', description: 'GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.' },
    namespace: { type: 'string', description: 'Namespace defines the space within which each name must be unique.' },
    selfLink: { type: 'string', description: 'Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.' },
    uid: { type: 'string', description: 'UID is the unique in time and space value for this object.' },
    resourceVersion: { type: 'string', description: 'An opaque value that represents the internal version of this object.' },
    generation: { type: 'integer', format: 'int64', description: 'A sequence number representing a specific generation of the desired state.' },
    creationTimestamp: { type: 'string', format: 'date-time', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.' },
    deletionTimestamp: { type: 'string', format: 'date-time', description: 'DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted.' },
    deletionGracePeriodSeconds: { type: 'integer', format: 'int64', description: 'Number of seconds allowed for this object to gracefully terminate before it will be removed from the system.' },
    labels: { type: 'object', additionalProperties: { type: 'string', default: '' }, description: 'Map of string keys and values that can be used to organize and categorize (scope and select) objects.' },
    annotations: { type: 'object', additionalProperties: { type: 'string', default: '' }, description: 'Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.' },
    ownerReferences: {
      type: 'array', description: 'List of objects depended by this object.', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['uid'],
      'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'uid',
      items: {
        type: 'object', required: ['apiVersion', 'kind', 'name', 'uid'],
        properties: {
          apiVersion: { type: 'string', default: '' }, kind: { type: 'string', default: '' }, name: { type: 'string', default: '' }, uid: { type: 'string', default: '' },
          controller: { type: 'boolean' }, blockOwnerDeletion: { type: 'boolean' },
        },
      },
    },
    finalizers: {
      type: 'array', items: { type: 'string', default: '' }, 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge',
      description: 'Must be empty before the object is deleted from the registry.',
    },
    managedFields: {
      type: 'array', description: 'ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow.',
      'x-kubernetes-list-type': 'atomic',
      items: {
        type: 'object',
        properties: {
          manager: { type: 'string' }, operation: { type: 'string' }, apiVersion: { type: 'string' }, time: { type: 'string', format: 'date-time' },
          fieldsType: { type: 'string' }, fieldsV1: { type: 'object' }, subresource: { type: 'string' },
        },
      },
    },
  },
};

/** `io.metal3.v1alpha1.BareMetalHost`: the reversed group, the version, the kind. */
export function definitionName(res: ResourceDef, version: string): string {
  const prefix = res.builtin ? (BUILTIN_PREFIX[res.group] ?? res.group) : `${res.group.split('.').reverse().join('.')}.${version}`;
  return `${prefix}.${res.kind}`;
}

function gvk(res: ResourceDef, version: string): Obj {
  return { group: res.group, kind: res.kind, version };
}

/** The kind's schema: CRDs as written (or a built-in's `whole` one), metadata as a $ref to ObjectMeta. */
function kindSchema(res: ResourceDef, version: VersionDef, ref: (name: string) => string, whole?: Obj): Obj {
  const base: Obj = structuredClone(whole ?? (res.builtin ? version.schema : version.openApiSchema ?? version.schema) ?? { type: 'object' }) as Obj;
  const props: Obj = isObj(base.properties) ? base.properties : {};
  const own: Obj = {
    apiVersion: { type: 'string', description: FIELD_DESCRIPTIONS.apiVersion },
    kind: { type: 'string', description: FIELD_DESCRIPTIONS.kind },
    metadata: { allOf: [{ $ref: ref(META_REF) }], default: {}, description: FIELD_DESCRIPTIONS.metadata },
  };
  const out: Obj = { ...base, type: 'object', properties: { ...own, ...withoutMeta(props) } };
  if (!out.description && KIND_DESCRIPTIONS[res.kind]) out.description = KIND_DESCRIPTIONS[res.kind];
  out['x-kubernetes-group-version-kind'] = [gvk(res, version.name)];
  return out;
}

function withoutMeta(props: Obj): Obj {
  const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = props;
  const out: Obj = { ...rest };
  for (const k of ['apiVersion', 'kind'] as const) if (isObj(props[k])) out[k] = { description: FIELD_DESCRIPTIONS[k], ...(props[k] as Obj) };
  return out;
}

const QUERY = (name: string, type: string, description: string): Obj => ({ name, in: 'query', description, schema: { type, uniqueItems: true } });
const WRITE_PARAMS = [
  QUERY('dryRun', 'string', 'When present, indicates that modifications should not be persisted.'),
  QUERY('fieldManager', 'string', 'fieldManager is a name associated with the actor or entity that is making these changes.'),
  QUERY('fieldValidation', 'string', 'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn (default) - Strict'),
];

// Built-in kinds whose schema here declares every field of the Go type. kubectl builds a strategic
// merge patch from /openapi/v3 when PATCH offers it there and fails on a field the schema lacks
// (`warning: error calculating patch from openapi v3 spec: unable to find api field "template"`);
// without the offer it uses its compiled-in types (Deployment, Service…) or a merge patch (CRDs).
const FULL_SCHEMA: ReadonlySet<string> = new Set(['secrets', 'events', 'namespaces', 'leases']);

function paths(res: ResourceDef, version: VersionDef, ref: string): Obj {
  const prefix = res.group ? `/apis/${res.group}/${version.name}` : `/api/${version.name}`;
  const collection = `${prefix}${res.namespaced ? '/namespaces/{namespace}' : ''}/${res.plural}`;
  const ext = gvk(res, version.name);
  const body = (types: string[]): Obj => ({ content: Object.fromEntries(types.map((t) => [t, { schema: { $ref: ref } }])), required: true });
  const ok = { 200: { description: 'OK', content: { 'application/json': { schema: { $ref: ref } } } } };
  const op = (action: string, extra: Obj = {}): Obj => ({ operationId: `${action}${res.kind}`, responses: ok, 'x-kubernetes-action': action, 'x-kubernetes-group-version-kind': ext, ...extra });
  const patchTypes = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml', ...(res.builtin && FULL_SCHEMA.has(res.builtin) ? ['application/strategic-merge-patch+json'] : [])];
  const patchBody: Obj = { content: Object.fromEntries(patchTypes.map((t) => [t, { schema: { type: 'object' } }])), required: true };
  const out: Obj = {
    [collection]: { get: op('list'), post: op('post', { requestBody: body(['application/json', 'application/yaml']), parameters: WRITE_PARAMS }) },
    [`${collection}/{name}`]: {
      get: op('get'),
      put: op('put', { requestBody: body(['application/json', 'application/yaml']), parameters: WRITE_PARAMS }),
      patch: op('patch', { requestBody: patchBody, parameters: [...WRITE_PARAMS, QUERY('force', 'boolean', 'Force is going to "force" Apply requests.')] }),
      delete: op('delete'),
    },
  };
  if (version.status) {
    out[`${collection}/{name}/status`] = {
      get: op('get'),
      put: op('put', { requestBody: body(['application/json']), parameters: WRITE_PARAMS }),
      patch: op('patch', { requestBody: patchBody, parameters: WRITE_PARAMS }),
    };
  }
  return out;
}

function served(registry: Registry, group: string, version: string): { res: ResourceDef; version: VersionDef }[] {
  return registry.all().flatMap((res) => {
    const v = res.group === group ? res.versions.find((x) => x.name === version) : undefined;
    return v ? [{ res, version: v }] : [];
  });
}

/** The v3 document of one group-version (`api/v1`, `apis/metal3.io/v1alpha1`), or undefined. */
export function openApiV3Document(registry: Registry, group: string, version: string): Obj | undefined {
  const found = served(registry, group, version);
  if (found.length === 0) return undefined;
  const ref = (name: string): string => `#/components/schemas/${name}`;
  const schemas: Obj = { [META_REF]: OBJECT_META };
  let allPaths: Obj = {};
  for (const { res, version: v } of found) {
    const name = definitionName(res, v.name);
    const whole = res.builtin ? builtinKindSchemas(res) : undefined;
    // A kind's own definition wins over the same type embedded in another kind (no GVK there).
    for (const [k, def] of Object.entries(whole?.definitions ?? {})) schemas[k] ??= structuredClone(def);
    schemas[name] = kindSchema(res, v, ref, whole?.root);
    allPaths = { ...allPaths, ...paths(res, v, ref(name)) };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.34.0' }, paths: allPaths, components: { schemas } };
}

export function hashOf(doc: unknown): string {
  return createHash('sha512').update(JSON.stringify(doc)).digest('hex').toUpperCase();
}

/** `/openapi/v3`: every group-version's path with the hash of its current document. */
export function openApiV3Index(registry: Registry): Obj {
  const gvs = new Map<string, [string, string]>();
  for (const res of registry.all()) for (const v of res.versions) gvs.set(res.group ? `apis/${res.group}/${v.name}` : `api/${v.name}`, [res.group, v.name]);
  const out: Obj = {};
  for (const [path, [group, version]] of [...gvs.entries()].sort()) {
    out[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hashOf(openApiV3Document(registry, group, version))}` };
  }
  return { paths: out };
}

/** Swagger 2.0 with every served kind (JSON only: see README). */
export function openApiV2(registry: Registry): Obj {
  const ref = (name: string): string => `#/definitions/${name}`;
  const definitions: Obj = { [META_REF]: OBJECT_META };
  for (const res of registry.all()) {
    for (const v of res.versions) definitions[definitionName(res, v.name)] = toV2(kindSchema(res, v, ref));
  }
  return { swagger: '2.0', info: { title: 'Kubernetes', version: 'v1.34.0' }, paths: {}, definitions };
}

// v2 has no `nullable` and no anyOf/oneOf beside properties; enough for a reader of types.
function toV2(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toV2);
  if (!isObj(schema)) return schema;
  const out: Obj = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'nullable' || k === 'anyOf' || k === 'oneOf') continue;
    out[k] = k === 'default' || k === 'enum' || k === 'example' ? v : toV2(v);
  }
  return out;
}

