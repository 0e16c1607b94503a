// Two small walkers over a CRD's openAPIV3Schema, written from reference/kube-api.md §8 and not
// from the generator, so a generator bug cannot hide behind itself:
// - structuralViolations: the rules a structural schema must meet;
// - admit: what the API server does with an object on create: prune, default, validate.

type Json = Record<string, unknown>;

const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);
// apiextensions.k8s.io/v1 JSONSchemaProps; anything else is refused by the API server or breaks
// the structural rules ($ref, definitions, patternProperties, dependencies, ...).
const KEYWORDS = new Set([
  'type', 'format', 'title', 'description', 'nullable', 'enum', 'default', 'example', 'externalDocs',
  'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties', 'required', 'properties',
  'additionalProperties', 'items', 'allOf', 'anyOf', 'oneOf', 'not',
  'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-int-or-string', 'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type', 'x-kubernetes-validations',
]);
const JUNCTORS = ['allOf', 'anyOf', 'oneOf', 'not'] as const;
// Inside a junctor these say something about the value that the outer schema must say instead.
const JUNCTOR_FORBIDDEN = ['type', 'default', 'description', 'nullable', 'additionalProperties', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-int-or-string', 'x-kubernetes-embedded-resource'];

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function join(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

/** Every breach of the structural rules in `root` (an openAPIV3Schema), as `path: rule`. */
export function structuralViolations(root: unknown): string[] {
  const out: string[] = [];
  if (!isObject(root)) return ['(root): not a schema object'];
  if (root.type !== 'object') out.push('(root): type must be object');
  const meta = isObject(root.properties) ? root.properties.metadata : undefined;
  if (isObject(meta)) {
    // metadata may say it is an object and constrain name and generateName, nothing more.
    const extra = Object.keys(meta).filter((k) => k !== 'type' && k !== 'properties');
    const props = isObject(meta.properties) ? Object.keys(meta.properties) : [];
    if (meta.type !== 'object' || extra.length > 0 || props.some((p) => p !== 'name' && p !== 'generateName')) {
      out.push('metadata: may only be type: object (with name/generateName constraints)');
    }
  }
  walkStructural(root, '', out, false);
  return out;
}

function walkStructural(node: Json, path: string, out: string[], inJunctor: boolean): void {
  const at = path || '(root)';
  for (const key of Object.keys(node)) {
    if (!KEYWORDS.has(key)) out.push(`${at}: "${key}" is not allowed in a structural schema`);
  }
  const preserve = node['x-kubernetes-preserve-unknown-fields'];
  const intOrString = node['x-kubernetes-int-or-string'];
  if (preserve !== undefined && preserve !== true) out.push(`${at}: x-kubernetes-preserve-unknown-fields must be true when set`);
  if (intOrString !== undefined && intOrString !== true) out.push(`${at}: x-kubernetes-int-or-string must be true when set`);
  if (inJunctor) {
    for (const key of JUNCTOR_FORBIDDEN) if (key in node) out.push(`${at}: "${key}" inside allOf/anyOf/oneOf/not`);
  } else if (node.type === undefined) {
    if (preserve !== true && intOrString !== true) out.push(`${at}: no type`);
  } else if (typeof node.type !== 'string' || !TYPES.has(node.type)) {
    out.push(`${at}: type ${JSON.stringify(node.type)} is not one of ${[...TYPES].join(', ')}`);
  }
  if (intOrString === true && node.type !== undefined) out.push(`${at}: an int-or-string node has no type`);
  if (node.uniqueItems === true) out.push(`${at}: uniqueItems: true is not allowed`);
  if ('additionalProperties' in node) {
    if (!isObject(node.additionalProperties)) out.push(`${at}: additionalProperties must be a schema (false is not allowed)`);
    if (isObject(node.properties)) out.push(`${at}: properties and additionalProperties together`);
  }
  if (node.nullable !== undefined && typeof node.nullable !== 'boolean') out.push(`${at}: nullable must be a boolean`);
  if (node.type === 'array' && !isObject(node.items)) out.push(`${at}: an array needs an items schema`);
  if (node.type !== undefined && node.type !== 'object' && ('properties' in node || 'additionalProperties' in node || 'required' in node)) {
    out.push(`${at}: properties/required on a ${String(node.type)}`);
  }
  if (Array.isArray(node.required)) {
    for (const name of node.required) {
      if (!isObject(node.properties) || !(String(name) in node.properties)) out.push(`${at}: required field ${String(name)} is not declared`);
    }
  }
  if (Array.isArray(node.enum) && typeof node.type === 'string' && TYPES.has(node.type)) {
    for (const value of node.enum) {
      if (validate({ type: node.type }, value, path).length > 0) out.push(`${at}: enum value ${JSON.stringify(value)} is not a ${node.type}`);
    }
  }
  if ('default' in node && !inJunctor) {
    // A default is pruned and validated like any value; one that fails would fail every object.
    for (const error of admit(node, node.default, path).errors) out.push(`${at}: default ${JSON.stringify(node.default)} is invalid (${error})`);
  }
  if (isObject(node.properties)) {
    for (const [name, child] of Object.entries(node.properties)) {
      if (isObject(child)) walkStructural(child, join(path, name), out, inJunctor);
      else out.push(`${join(path, name)}: not a schema object`);
    }
  }
  if (isObject(node.items)) walkStructural(node.items, `${path}[]`, out, inJunctor);
  if (isObject(node.additionalProperties)) walkStructural(node.additionalProperties, `${path}[*]`, out, inJunctor);
  for (const junctor of JUNCTORS) {
    if (!(junctor in node)) continue;
    const branches = junctor === 'not' ? [node.not] : node[junctor];
    // The int-or-string node may spell out its two types: anyOf [{type: integer}, {type: string}].
    const intOrStringForm = junctor === 'anyOf' && intOrString === true && Array.isArray(branches)
      && branches.length === 2 && branches.every((b) => isObject(b) && Object.keys(b).length === 1)
      && branches.map((b) => (b as Json).type).sort().join() === 'integer,string';
    if (intOrStringForm) continue;
    for (const branch of Array.isArray(branches) ? branches : [branches]) {
      if (!isObject(branch)) {
        out.push(`${at}: ${junctor} branch is not a schema object`);
        continue;
      }
      for (const name of isObject(branch.properties) ? Object.keys(branch.properties) : []) {
        if (!isObject(node.properties) || !(name in node.properties)) out.push(`${at}: ${junctor} names ${name}, which is not declared outside it`);
      }
      walkStructural(branch, path, out, true);
    }
  }
}

/** What the API server makes of `value` against `schema`: pruned and defaulted, with its errors. */
export function admit(schema: Json, value: unknown, path = ''): { value: unknown; errors: string[] } {
  const admitted = defaults(schema, prune(schema, value));
  return { value: admitted, errors: validate(schema, admitted, path) };
}

/** A custom resource as the API server handles it: ObjectMeta on its own rules, then the schema. */
export function admitObject(schema: Json, object: unknown): { value: unknown; errors: string[] } {
  const result = admit(schema, object);
  const meta = isObject(object) ? object.metadata : undefined;
  return { value: result.value, errors: [...objectMetaErrors(meta), ...result.errors] };
}

// The API server's own ObjectMeta validation, as far as the fields zod's ObjectMeta types.
function objectMetaErrors(meta: unknown): string[] {
  if (!isObject(meta)) return ['metadata: Required value'];
  const errors: string[] = [];
  if (typeof meta.name !== 'string' || meta.name === '') errors.push('metadata.name: Required value: name or generateName is required');
  for (const key of ['namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp']) {
    if (meta[key] !== undefined && meta[key] !== null && typeof meta[key] !== 'string') errors.push(`metadata.${key}: must be a string`);
  }
  for (const key of ['labels', 'annotations']) {
    const map = meta[key];
    if (map === undefined || map === null) continue;
    if (!isObject(map) || Object.values(map).some((v) => typeof v !== 'string')) errors.push(`metadata.${key}: must be a map of strings`);
  }
  if (meta.finalizers !== undefined && meta.finalizers !== null && (!Array.isArray(meta.finalizers) || meta.finalizers.some((f) => typeof f !== 'string'))) {
    errors.push('metadata.finalizers: must be a list of strings');
  }
  return errors;
}

// Unknown fields go unless the node preserves them. A null in a declared field that is not nullable
// goes too, and defaulting then fills it if it has a default; a null elsewhere stays and fails.
function prune(schema: Json, value: unknown): unknown {
  if (Array.isArray(value)) return isObject(schema.items) ? value.map((v) => prune(schema.items as Json, v)) : value;
  if (!isObject(value)) return value;
  const properties = isObject(schema.properties) ? schema.properties : {};
  const additional = isObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
  const out: Json = {};
  for (const [key, item] of Object.entries(value)) {
    const declared = isObject(properties[key]) ? properties[key] : undefined;
    const child = declared ?? additional;
    if (child === undefined) {
      if (schema['x-kubernetes-preserve-unknown-fields'] === true) out[key] = item;
      continue;
    }
    if (item === null && declared && declared.nullable !== true) continue;
    out[key] = prune(child, item);
  }
  return out;
}

function defaults(schema: Json, value: unknown): unknown {
  if (Array.isArray(value)) return isObject(schema.items) ? value.map((v) => defaults(schema.items as Json, v)) : value;
  if (!isObject(value)) return value;
  const out: Json = { ...value };
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const [key, child] of Object.entries(properties)) {
    if (!isObject(child)) continue;
    if (out[key] === undefined && 'default' in child) out[key] = structuredClone(child.default);
    if (out[key] !== undefined) out[key] = defaults(child, out[key]);
  }
  if (isObject(schema.additionalProperties)) {
    for (const key of Object.keys(out)) if (!(key in properties)) out[key] = defaults(schema.additionalProperties, out[key]);
  }
  return out;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** The schema's verdict on an already pruned and defaulted value, one message per violation. */
export function validate(schema: Json, value: unknown, path: string): string[] {
  const at = path || '(root)';
  if (value === null) return schema.nullable === true ? [] : [`${at}: Invalid value: null: must be of type ${String(schema.type ?? 'any')}`];
  if (schema['x-kubernetes-int-or-string'] === true) {
    return (typeof value === 'string' || Number.isInteger(value)) ? [] : [`${at}: Invalid value: must be an integer or a string`];
  }
  if (schema.type === undefined) return [];
  const actual = typeName(value);
  const matches = schema.type === actual || (schema.type === 'number' && actual === 'integer');
  if (!matches) return [`${at}: Invalid value: "${actual}": must be of type ${String(schema.type)}`];
  const errors: string[] = [];
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => e === value)) {
    errors.push(`${at}: Unsupported value: ${JSON.stringify(value)}: supported values: ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof schema.minLength === 'number' && length < schema.minLength) errors.push(`${at}: should be at least ${schema.minLength} chars long`);
    if (typeof schema.maxLength === 'number' && length > schema.maxLength) errors.push(`${at}: may not be more than ${schema.maxLength} chars`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) errors.push(`${at}: should match '${schema.pattern}'`);
  }
  if (typeof value === 'number') {
    const min = schema.minimum;
    const max = schema.maximum;
    if (typeof min === 'number' && (schema.exclusiveMinimum === true ? value <= min : value < min)) errors.push(`${at}: should be greater than ${schema.exclusiveMinimum === true ? '' : 'or equal to '}${min}`);
    if (typeof max === 'number' && (schema.exclusiveMaximum === true ? value >= max : value > max)) errors.push(`${at}: should be less than ${schema.exclusiveMaximum === true ? '' : 'or equal to '}${max}`);
    if (typeof schema.multipleOf === 'number' && value % schema.multipleOf !== 0) errors.push(`${at}: should be a multiple of ${schema.multipleOf}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) errors.push(`${at}: should have at least ${schema.minItems} items`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) errors.push(`${at}: must have at most ${schema.maxItems} items`);
    if (isObject(schema.items)) value.forEach((item, i) => errors.push(...validate(schema.items as Json, item, `${path}[${i}]`)));
  }
  if (isObject(value)) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    for (const name of Array.isArray(schema.required) ? schema.required : []) {
      if (value[String(name)] === undefined) errors.push(`${join(path, String(name))}: Required value`);
    }
    for (const [key, item] of Object.entries(value)) {
      const child = isObject(properties[key]) ? properties[key] : isObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
      if (child) errors.push(...validate(child, item, join(path, key)));
    }
    const count = Object.keys(value).length;
    if (typeof schema.minProperties === 'number' && count < schema.minProperties) errors.push(`${at}: should have at least ${schema.minProperties} properties`);
    if (typeof schema.maxProperties === 'number' && count > schema.maxProperties) errors.push(`${at}: should have at most ${schema.maxProperties} properties`);
  }
  return errors;
}
