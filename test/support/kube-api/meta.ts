// ObjectMeta: coercion of the decoded metadata (unknown fields pruned, wrong types refused) and
// its validation on create and update (`apimachinery/pkg/api/validation/objectmeta.go`).
import { forbidden, invalid, required, fieldError } from './field-errors.ts';
import type { FieldError } from './field-errors.ts';
import { jsonType } from './schema-validate.ts';
import { isDns1123Label, isDns1123Subdomain, isQualifiedName, isValidLabelValue, maskTrailingDash } from './names.ts';
import { isObj, metaOf, str } from './types.ts';
import type { Obj, ResourceDef } from './types.ts';

type Shape = 'string' | 'integer' | 'map' | 'strings' | 'list';
const FIELDS: Record<string, { shape: Shape; go: string }> = {
  name: { shape: 'string', go: 'string' },
  generateName: { shape: 'string', go: 'string' },
  namespace: { shape: 'string', go: 'string' },
  selfLink: { shape: 'string', go: 'string' },
  uid: { shape: 'string', go: 'types.UID' },
  resourceVersion: { shape: 'string', go: 'string' },
  generation: { shape: 'integer', go: 'int64' },
  creationTimestamp: { shape: 'string', go: 'v1.Time' },
  deletionTimestamp: { shape: 'string', go: 'v1.Time' },
  deletionGracePeriodSeconds: { shape: 'integer', go: 'int64' },
  labels: { shape: 'map', go: 'map[string]string' },
  annotations: { shape: 'map', go: 'map[string]string' },
  ownerReferences: { shape: 'list', go: '[]v1.OwnerReference' },
  finalizers: { shape: 'strings', go: '[]string' },
  managedFields: { shape: 'list', go: '[]v1.ManagedFieldsEntry' },
};

/**
 * Drops unknown metadata fields (returned as `metadata.x` paths) and nulls; returns the Go decode
 * error text for a field of the wrong type, as a typed ObjectMeta decode would.
 */
export function coerceMeta(obj: Obj): { pruned: string[]; typeError?: string } {
  if (obj.metadata === undefined || obj.metadata === null) {
    delete obj.metadata;
    return { pruned: [] };
  }
  if (!isObj(obj.metadata)) return { pruned: [], typeError: `json: cannot unmarshal ${goJsonType(obj.metadata)} into Go struct field .metadata of type v1.ObjectMeta` };
  const meta = obj.metadata;
  const pruned: string[] = [];
  for (const [k, v] of Object.entries(meta)) {
    const field = FIELDS[k];
    if (!field) {
      pruned.push(`metadata.${k}`);
      delete meta[k];
    } else if (v === null) {
      delete meta[k];
    } else if (!fits(v, field.shape)) {
      return { pruned, typeError: `json: cannot unmarshal ${goJsonType(v)} into Go struct field ObjectMeta.metadata.${k} of type ${field.go}` };
    } else if (isEmpty(v, field.shape)) {
      // The typed ObjectMeta round trip (objectmeta.SetObjectMeta's ToUnstructured) omits empty
      // maps and lists (`omitempty`): `labels: {}` or `finalizers: []` is never stored.
      delete meta[k];
    }
  }
  return { pruned };
}

function fits(v: unknown, shape: Shape): boolean {
  switch (shape) {
    case 'string': return typeof v === 'string';
    case 'integer': return typeof v === 'number' && Number.isInteger(v);
    case 'map': return isObj(v) && Object.values(v).every((x) => typeof x === 'string');
    case 'strings': return Array.isArray(v) && v.every((x) => typeof x === 'string');
    case 'list': return Array.isArray(v) && v.every(isObj);
  }
}

function isEmpty(v: unknown, shape: Shape): boolean {
  if (shape === 'map') return Object.keys(v as Obj).length === 0;
  return (shape === 'strings' || shape === 'list') && (v as unknown[]).length === 0;
}

function goJsonType(v: unknown): string {
  const t = jsonType(v);
  return t === 'integer' ? 'number' : t;
}

/** Name rules per kind: Namespaces are DNS labels, everything else here DNS subdomains. */
function nameErrors(res: ResourceDef, name: string, prefix: boolean): string[] {
  const value = prefix ? maskTrailingDash(name) : name;
  return res.builtin === 'namespaces' ? isDns1123Label(value) : isDns1123Subdomain(value);
}

export function validateMetaCreate(res: ResourceDef, obj: Obj): FieldError[] {
  const meta = metaOf(obj);
  const errs: FieldError[] = [];
  const generateName = str(meta.generateName);
  const name = str(meta.name);
  const namespace = str(meta.namespace);
  if (generateName) for (const msg of nameErrors(res, generateName, true)) errs.push(invalid('metadata.generateName', generateName, msg));
  if (!name) errs.push(required('metadata.name', 'name or generateName is required'));
  else for (const msg of nameErrors(res, name, false)) errs.push(invalid('metadata.name', name, msg));
  if (res.namespaced) {
    if (!namespace) errs.push(required('metadata.namespace'));
    else for (const msg of isDns1123Label(namespace)) errs.push(invalid('metadata.namespace', namespace, msg));
  } else if (namespace) {
    errs.push(forbidden('metadata.namespace', 'not allowed on this type'));
  }
  if (typeof meta.generation === 'number' && meta.generation < 0) errs.push(invalid('metadata.generation', meta.generation, 'must be greater than or equal to 0'));
  errs.push(...common(meta));
  errs.push(...finalizerErrors(meta));
  return errs;
}

export function validateMetaUpdate(obj: Obj, old: Obj): FieldError[] {
  const meta = metaOf(obj);
  const before = metaOf(old);
  const errs: FieldError[] = [];
  if (before.deletionTimestamp) {
    const had = new Set(strings(before.finalizers));
    const extra = [...new Set(strings(meta.finalizers).filter((f) => !had.has(f)))].sort();
    if (extra.length > 0) {
      errs.push(forbidden('metadata.finalizers',
        `no new finalizers can be added if the object is being deleted, found new finalizers []string{${extra.map((f) => JSON.stringify(f)).join(', ')}}`));
    }
  }
  errs.push(...finalizerErrors(meta));
  errs.push(...common(meta));
  return errs;
}

function common(meta: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const labels = isObj(meta.labels) ? (meta.labels as Record<string, string>) : {};
  for (const [k, v] of Object.entries(labels)) {
    for (const msg of isQualifiedName(k)) errs.push(invalid('metadata.labels', k, msg));
    for (const msg of isValidLabelValue(v)) errs.push(invalid('metadata.labels', v, msg));
  }
  const annotations = isObj(meta.annotations) ? (meta.annotations as Record<string, string>) : {};
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalid('metadata.annotations', k, msg));
    size += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (size > 262_144) errs.push(fieldError('TooLong', 'metadata.annotations', '', 'may not be more than 262144 bytes'));
  errs.push(...ownerReferenceErrors(meta.ownerReferences));
  return errs;
}

function finalizerErrors(meta: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const finalizers = strings(meta.finalizers);
  for (const f of finalizers) for (const msg of isQualifiedName(f)) errs.push(invalid('metadata.finalizers', f, msg));
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errs.push(invalid('metadata.finalizers', finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

function ownerReferenceErrors(refs: unknown): FieldError[] {
  if (!Array.isArray(refs)) return [];
  const errs: FieldError[] = [];
  const path = 'metadata.ownerReferences';
  const controllers: string[] = [];
  for (const ref of refs as Obj[]) {
    const apiVersion = str(ref.apiVersion);
    const version = apiVersion.includes('/') ? apiVersion.split('/')[1] : apiVersion;
    if (!version) errs.push(invalid(`${path}.apiVersion`, apiVersion, 'version must not be empty'));
    if (!str(ref.kind)) errs.push(invalid(`${path}.kind`, str(ref.kind), 'must not be empty'));
    if (!str(ref.name)) errs.push(invalid(`${path}.name`, str(ref.name), 'must not be empty'));
    if (!str(ref.uid)) errs.push(invalid(`${path}.uid`, str(ref.uid), 'must not be empty'));
    if (ref.controller === true) controllers.push(`${str(ref.kind)}/${str(ref.name)}`);
  }
  if (controllers.length > 1) {
    errs.push(invalid(path, refs, `Only one reference can have Controller set to true. Found "true" in references for ${controllers.join(' and ')}`));
  }
  return errs;
}

export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
