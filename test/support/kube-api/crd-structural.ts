// The CRD checks of `apiextensions/validation` and the structural-schema rules of
// `apiserver/schema/validation.go` that a generated CRD can get wrong (kube-api.md §8). Messages
// follow the real ones; where this server is unsure of the wording it says so with [?].
import { aggregate, fieldError, forbidden, invalid, notSupported, required } from './field-errors.ts';
import type { FieldError } from './field-errors.ts';
import { isDns1035Label, isDns1123Subdomain } from './names.ts';
import { pruneResource } from './schema-prune.ts';
import { validateSchema } from './schema-validate.ts';
import type { JsonSchema } from './schema.ts';
import type { Crd } from './crd.ts';

/** Everything wrong with the CRD as one `… is invalid: […]` message, or undefined. */
export function checkCrd(crd: Crd): string | undefined {
  const errs: FieldError[] = [];
  const { spec } = crd;
  const { names } = spec;
  if (crd.metadata.name !== `${names.plural}.${spec.group}`) errs.push(invalid('metadata.name', crd.metadata.name, 'must be spec.names.plural+"."+spec.group'));
  if (!spec.group) errs.push(required('spec.group'));
  else {
    for (const msg of isDns1123Subdomain(spec.group)) errs.push(invalid('spec.group', spec.group, msg));
    if (!spec.group.includes('.')) errs.push(invalid('spec.group', spec.group, 'should be a domain with at least one dot'));
  }
  if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced') errs.push(notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));
  if (!names.plural) errs.push(required('spec.names.plural'));
  else for (const msg of isDns1035Label(names.plural)) errs.push(invalid('spec.names.plural', names.plural, msg));
  if (names.singular) for (const msg of isDns1035Label(names.singular)) errs.push(invalid('spec.names.singular', names.singular, msg));
  if (!names.kind) errs.push(required('spec.names.kind'));
  else if (isDns1035Label(names.kind.toLowerCase()).length > 0) {
    errs.push(invalid('spec.names.kind', names.kind, 'may have mixed case, but should otherwise match: [a-z]([-a-z0-9]*[a-z0-9])?'));
  }
  const storage = spec.versions.filter((v) => v.storage).length;
  if (spec.versions.length === 0) errs.push(required('spec.versions', 'must have exactly one version marked as storage version'));
  else if (storage !== 1) errs.push(invalid('spec.versions', spec.versions.map((v) => v.name), 'must have exactly one version marked as storage version'));
  const seen = new Set<string>();
  spec.versions.forEach((v, i) => {
    const at = `spec.versions[${i}]`;
    for (const msg of isDns1035Label(v.name)) errs.push(invalid(`${at}.name`, v.name, msg));
    if (seen.has(v.name)) errs.push(fieldError('Duplicate', `${at}.name`, v.name));
    seen.add(v.name);
    const schema = v.schema?.openAPIV3Schema;
    if (!schema) errs.push(required(`${at}.schema.openAPIV3Schema`, 'schemas are required'));
    else errs.push(...structural(schema, `${at}.schema.openAPIV3Schema`, 'root'));
  });
  if (errs.length === 0) return undefined;
  return `CustomResourceDefinition.apiextensions.k8s.io ${JSON.stringify(crd.metadata.name)} is invalid: ${aggregate(errs)}`;
}

type Level = 'root' | 'field' | 'item';

const TYPE_MISSING: Record<Level, string> = {
  root: 'must not be empty at the root',
  field: 'must not be empty for specified object fields',
  item: 'must not be empty for specified array items',
};

function structural(s: JsonSchema, path: string, level: Level): FieldError[] {
  const errs: FieldError[] = [];
  const preserve = s['x-kubernetes-preserve-unknown-fields'];
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  if (preserve === false) errs.push(invalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  if (!s.type && !intOrString && !preserve && !s['x-kubernetes-embedded-resource']) errs.push(required(`${path}.type`, TYPE_MISSING[level]));
  if (level === 'root' && s.type && s.type !== 'object') errs.push(invalid(`${path}.type`, s.type, 'must be object at the root'));
  if (s.type && !['object', 'array', 'string', 'integer', 'number', 'boolean'].includes(s.type)) {
    errs.push(notSupported(`${path}.type`, s.type, ['array', 'boolean', 'integer', 'number', 'object', 'string']));
  }
  // [?] wording of the int-or-string/type clash.
  if (intOrString && s.type) errs.push(invalid(`${path}.type`, s.type, 'must be empty if x-kubernetes-int-or-string is true'));
  if (s.additionalProperties === false) errs.push(forbidden(`${path}.additionalProperties`, 'additionalProperties cannot be set to false'));
  if (s.additionalProperties !== undefined && s.additionalProperties !== false && s.properties) {
    errs.push(forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
  }
  if (s.uniqueItems === true) errs.push(forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  if (s.type === 'array' && !s.items) errs.push(required(`${path}.items`, 'must be specified'));
  if (s['x-kubernetes-list-type'] === 'map' && !(s['x-kubernetes-list-map-keys'] ?? []).length) {
    errs.push(required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
  }
  if (level === 'root' && s.properties?.metadata) errs.push(...rootMetadata(s.properties.metadata, `${path}.properties[metadata]`));
  for (const [k, prop] of Object.entries(s.properties ?? {})) errs.push(...structural(prop, `${path}.properties[${k}]`, 'field'));
  if (typeof s.additionalProperties === 'object') errs.push(...structural(s.additionalProperties, `${path}.additionalProperties`, 'field'));
  if (s.items) errs.push(...structural(s.items, `${path}.items`, 'item'));
  for (const junctor of ['allOf', 'anyOf', 'oneOf'] as const) {
    (s[junctor] ?? []).forEach((b, i) => errs.push(...junctorErrors(b, `${path}.${junctor}[${i}]`)));
  }
  if (s.not) errs.push(...junctorErrors(s.not, `${path}.not`));
  if (s.default !== undefined) errs.push(...defaultErrors(s, path));
  return errs;
}

// Inside allOf/anyOf/oneOf/not a structural schema may not set type, default, nullable or
// additionalProperties (they must be declared outside).
function junctorErrors(s: JsonSchema, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of ['type', 'default', 'nullable', 'additionalProperties'] as const) {
    if (s[k] !== undefined) errs.push(forbidden(`${path}.${k}`, 'must be empty to be structural'));
  }
  for (const [k, prop] of Object.entries(s.properties ?? {})) errs.push(...junctorErrors(prop, `${path}.properties[${k}]`));
  if (s.items) errs.push(...junctorErrors(s.items, `${path}.items`));
  return errs;
}

function rootMetadata(s: JsonSchema, path: string): FieldError[] {
  const allowed = new Set(['name', 'generateName']);
  const extra = Object.keys(s).filter((k) => k !== 'type' && k !== 'properties');
  const props = Object.keys(s.properties ?? {}).filter((k) => !allowed.has(k));
  if (extra.length === 0 && props.length === 0 && (s.type === undefined || s.type === 'object')) return [];
  return [forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified')];
}

// [?] A default must survive pruning unchanged and validate against its own schema; the real
// server reports these under `<path>.default` with the validator's text.
function defaultErrors(s: JsonSchema, path: string): FieldError[] {
  const at = `${path}.default`;
  const value = structuredClone(s.default);
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const pruned = pruneResource({ value } as Record<string, unknown>, { type: 'object', properties: { value: s } });
    if (pruned.length > 0) return [invalid(at, s.default, 'must not have unknown fields')];
  }
  return validateSchema(s.default, { ...s, default: undefined }, undefined, 'default').map((e) => ({ ...e, field: `${path}.${e.field}` }));
}
