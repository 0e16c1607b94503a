import { z } from 'zod';
import { pruneNulls } from '../maas/prune-nulls.ts';
import { JSON_SCHEMA_TYPES } from './json-schema-props.ts';
import type { JsonSchemaProps, JsonSchemaType } from './json-schema-props.ts';
import { READ_DEFAULT } from './read-default.ts';
import { MetalfleetError } from '../metalfleet-error.ts';

// A zod schema as a structural OpenAPI v3 schema (reference/kube-api.md §8): every node typed, no
// $ref, no additionalProperties: false, no type inside anyOf. zod's own JSON Schema output is the
// starting point; every place where it and a structural schema part ways is handled below, each
// with its reason, and anything not handled stops the generator instead of being guessed at.

/** A part of a zod schema that a CRD cannot express; `path` is where, e.g. `spec.raid`. */
export class CrdSchemaError extends MetalfleetError {
  constructor(readonly path: string, readonly reason: string) {
    super('crdSchema', `${path || '(root)'}: ${reason}`, false);
    this.name = 'CrdSchemaError';
  }
}

type Json = Record<string, unknown>;

interface Walk {
  readonly path: string;
  readonly definitions: Json;
  /** `$ref`s being inlined above this node, to refuse a recursive schema. */
  readonly inlining: readonly string[];
  /** Inside a `z.preprocess(pruneNulls, ...)`. */
  readonly prunesNulls: boolean;
}

// Set on the JSON of a pruneNulls preprocess by the override below; read and dropped by convert().
const PRUNES_NULLS = 'x-metalfleet-prunes-nulls';

// Keywords carried over unchanged: they mean the same to the API server as to zod's output.
const COPIED = new Set(['format', 'title', 'description', 'enum', 'default', 'minLength', 'maxLength',
  'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems', 'minProperties', 'maxProperties']);

/**
 * The structural schema of what `schema` accepts. Throws CrdSchemaError where the CRD could not
 * accept exactly the objects zod accepts and no rule below says why the difference is harmless.
 */
export function structuralSchema(schema: z.ZodType): JsonSchemaProps {
  const json = z.toJSONSchema(schema, {
    // OpenAPI 3.0 is the dialect of openAPIV3Schema: `nullable: true` rather than a null branch,
    // boolean exclusiveMinimum, `enum` rather than `const`.
    target: 'openapi-3.0',
    // The CRD describes what a user writes and the server stores: a field with a zod .default()
    // is optional there, and the server fills it from the same `default`.
    io: 'input',
    unrepresentable: 'throw',
    // A structural schema cannot refer to itself.
    cycles: 'throw',
    reused: 'inline',
    override: ({ zodSchema, jsonSchema, path }) => {
      refuseTuple(zodSchema, path);
      refuseInvalidDefault(zodSchema, path);
      markPreprocess(zodSchema, jsonSchema, path);
    },
  }) as Json;
  const { definitions, ...root } = json;
  return convert(root, { path: '', definitions: isObject(definitions) ? definitions : {}, inlining: [], prunesNulls: false });
}

// zod emits a preprocess as the schema after it, which is right only when the preprocess does
// what the API server does anyway. pruneNulls is such a step: the server prunes a null from a
// field that is not nullable before it validates (kube-api.md §8), so the CRD describes the
// object after pruneNulls, provided nothing under it is nullable (checked in convert()). Any
// other preprocess changes what is accepted in a way no schema can say.
function markPreprocess(zodSchema: z.core.$ZodType, jsonSchema: Json, path: readonly (string | number)[]): void {
  const def = zodSchema._zod.def;
  if (def.type !== 'pipe') return;
  const pipe = def as z.core.$ZodPipeDef;
  if (pipe.in._zod.def.type !== 'transform') return;
  const fn = (pipe.in._zod.def as z.core.$ZodTransformDef).transform;
  if (fn !== pruneNulls) {
    throw new CrdSchemaError(fieldPath(path), `z.preprocess(${fn.name || 'anonymous'}) cannot be expressed in a CRD schema; only pruneNulls, which the API server's pruning does anyway, can`);
  }
  jsonSchema[PRUNES_NULLS] = true;
}

// zod writes a tuple as an array whose items are any of the element types: [string, int] would
// become a list of int-or-string of any order, far looser than the tuple.
function refuseTuple(zodSchema: z.core.$ZodType, path: readonly (string | number)[]): void {
  if (zodSchema._zod.def.type === 'tuple') throw new CrdSchemaError(fieldPath(path), 'a tuple has no structural schema; use z.array() or an object');
}

// zod returns a .default() value as it is, never checking it against the schema it defaults, so
// `z.string().min(3).default('ab')` parses. The API server validates a CRD's defaults against their
// own field (kube-api.md §8) and refuses the whole CRD when one fails: stop here instead, naming
// the field. The default is checked as the input it becomes: the server stores it and zod reads it.
// readDefault()s are checked too: zod fills them when it reads, and they must read back.
function refuseInvalidDefault(zodSchema: z.core.$ZodType, path: readonly (string | number)[]): void {
  const def = zodSchema._zod.def;
  if (def.type !== 'default') return;
  const { innerType, defaultValue } = def as z.core.$ZodDefaultDef;
  const result = z.safeParse(innerType, defaultValue);
  if (result.success) return;
  const problems = result.error.issues.map((issue) => `${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}`).join('; ');
  throw new CrdSchemaError(fieldPath(path), `default ${JSON.stringify(defaultValue)} fails the field's own schema (${problems}): zod hands it out unchecked, and the API server refuses a CRD declaring it`);
}

// The override's JSON Schema path (['properties', 'spec', 'properties', 'raid']) as a field path.
function fieldPath(path: readonly (string | number)[]): string {
  return path.filter((p) => p !== 'properties').map((p) => (p === 'items' ? '[]' : String(p))).join('.').replaceAll('.[]', '[]');
}

function convert(input: Json, walk: Walk): JsonSchemaProps {
  const { node, walk: at } = inline(input, walk);
  const prunes = at.prunesNulls || node[PRUNES_NULLS] === true;
  const here: Walk = { ...at, prunesNulls: prunes };
  if ('anyOf' in node || 'oneOf' in node) return convertUnion(node, here);
  const out: JsonSchemaProps = {};
  let additional: unknown;
  for (const [key, value] of Object.entries(node)) {
    switch (key) {
      case 'type':
        out.type = schemaType(value, here);
        break;
      case 'properties':
        out.properties = {};
        for (const [name, child] of Object.entries(asObject(value, here, key))) {
          out.properties[name] = convert(asObject(child, here, name), step(here, name));
        }
        break;
      case 'required':
        // Sorted, as controller-gen writes them: the order means nothing and a reordered zod
        // object should not change the file.
        out.required = [...(value as string[])].sort();
        break;
      case 'items':
        if (Array.isArray(value)) throw new CrdSchemaError(here.path, 'a tuple has no structural schema; use z.array()');
        out.items = convert(asObject(value, here, key), step(here, '[]'));
        break;
      case 'additionalProperties':
        additional = value;
        break;
      case 'nullable':
        if (value !== true) break;
        if (prunes) throw new CrdSchemaError(here.path, 'nullable under pruneNulls: zod would never see the null the API server keeps');
        out.nullable = true;
        break;
      case 'minimum':
      case 'maximum':
        // z.int() is a safe integer, which zod states as ±(2^53 - 1) bounds on every integer.
        // That is JavaScript's limit, not the API's (the server stores int64): a larger value
        // still fails zod when metalfleet reads the object. Left out, as controller-gen has no
        // such bounds, rather than repeated on every integer field; explicit .min()/.max() stay.
        if (node.type === 'integer' && Math.abs(value as number) === Number.MAX_SAFE_INTEGER) break;
        out[key] = value as number;
        break;
      case 'propertyNames':
        // z.record(z.string(), ...): JSON keys are strings already. A narrower key schema would be
        // a rule on keys, which OpenAPI v3 cannot state.
        if (!isObject(value) || Object.keys(value).some((k) => k !== 'type') || value.type !== 'string') {
          throw new CrdSchemaError(here.path, 'a record with constrained keys has no structural schema');
        }
        break;
      case 'pattern':
        // The API server compiles patterns with Go's regexp (RE2), which has no lookaround and no
        // backreferences: a CRD with such a pattern is refused (zod's hostname format is one).
        if (/\(\?<?[=!]|\\[1-9]|\\k</.test(String(value))) {
          throw new CrdSchemaError(here.path, `pattern ${String(value)} uses lookaround or a backreference, which the API server's regexp (RE2) does not have`);
        }
        out.pattern = String(value);
        break;
      case 'readOnly':
        // z.readonly() is about the TypeScript type; immutability is the webhook's to enforce.
        break;
      case PRUNES_NULLS:
      case READ_DEFAULT:
        break;
      case 'default':
        // readDefault(): metalfleet fills it when reading; upstream's CRD, and so this one, has none.
        if (node[READ_DEFAULT] !== true) out.default = value;
        break;
      default:
        if (!COPIED.has(key)) throw new CrdSchemaError(here.path, `JSON Schema keyword "${key}" has no place in a CRD schema`);
        (out as Record<string, unknown>)[key] = value;
    }
  }
  if (additional !== undefined) applyAdditional(out, additional, here);
  if (Object.keys(node).length === 0 || (Object.keys(node).length === 1 && node[PRUNES_NULLS] === true)) {
    // z.unknown() / z.any(): anything goes, which a structural schema says with this flag.
    return { 'x-kubernetes-preserve-unknown-fields': true };
  }
  if (out.type === undefined) throw new CrdSchemaError(here.path, 'every node of a structural schema needs a type');
  // The API server checks a null against a field's type (nullable lets it through) and its enum,
  // which never matches null, not even a null listed in it (kube-openapi's common validator): a
  // nullable enum refuses the null zod accepts. Optional instead of nullable says "unset".
  if (out.nullable === true && out.enum !== undefined) {
    throw new CrdSchemaError(here.path, 'a nullable enum: the API server checks the enum on a null too and refuses it, where zod accepts it; make the field optional rather than nullable');
  }
  return out;
}

function applyAdditional(out: JsonSchemaProps, additional: unknown, walk: Walk): void {
  // z.object() strips unknown keys and the API server prunes them: the same outcome, and a
  // structural schema may not say additionalProperties: false. (z.strictObject() would reject
  // them, which only the webhook can do.)
  if (additional === false) return;
  const open = additional === true || (isObject(additional) && Object.keys(additional).length === 0);
  if (open) {
    // z.looseObject() and z.record(z.string(), z.unknown()) keep what they do not know; so must
    // the API server, or it prunes those fields before zod ever sees them.
    out['x-kubernetes-preserve-unknown-fields'] = true;
    if (out.properties && Object.keys(out.properties).length === 0) delete out.properties;
    return;
  }
  if (out.properties && Object.keys(out.properties).length > 0) {
    throw new CrdSchemaError(walk.path, 'an object with both fields and a catchall schema has no structural schema');
  }
  out.additionalProperties = convert(asObject(additional, walk, 'additionalProperties'), step(walk, '*'));
}

// A structural schema gives every field one type, so a union is expressible only as one of the
// shapes below; zod emits each branch typed, which anyOf may not carry.
function convertUnion(node: Json, walk: Walk): JsonSchemaProps {
  const { anyOf, oneOf, ...rest } = node;
  const branches = ((anyOf ?? oneOf) as unknown[]).map((b) => inline(asObject(b, walk, 'anyOf'), walk).node);
  // OpenAPI 3.0 has no null type: zod writes z.null() as a nullable enum of just null.
  const isNull = (b: Json): boolean => b.type === 'null' || (b.nullable === true && (b.type === undefined || (Array.isArray(b.enum) && b.enum.length === 1 && b.enum[0] === null)));
  const typed = branches.filter((b) => !isNull(b));
  const nullable = typed.length < branches.length || rest.nullable === true;
  const withNull = (schema: Json): Json => (nullable ? { ...schema, nullable: true } : schema);
  // z.union([A, z.null()]) written out as a union.
  if (typed.length === 1) return convert(withNull({ ...typed[0], ...rest }), walk);
  // z.union([z.enum([...]), z.literal('')]): one string enum with the values of both.
  const first = typed[0];
  const enums = typed.every((b) => Array.isArray(b.enum) && b.type === first?.type && Object.keys(b).every((k) => k === 'type' || k === 'enum'));
  if (first && enums) {
    const values = [...new Set(typed.flatMap((b) => b.enum as unknown[]))];
    return convert(withNull({ type: first.type, enum: values, ...rest }), walk);
  }
  // z.union([z.int(), z.string()]): Kubernetes' IntOrString, the one typed union it knows.
  const bare = (b: Json): boolean => Object.keys(b).every((k) => k === 'type' || ((k === 'minimum' || k === 'maximum') && Math.abs(b[k] as number) === Number.MAX_SAFE_INTEGER));
  const types = typed.map((b) => b.type).sort();
  if (typed.length === 2 && types[0] === 'integer' && types[1] === 'string' && typed.every(bare)) {
    const out: JsonSchemaProps = { 'x-kubernetes-int-or-string': true };
    for (const [key, value] of Object.entries(rest)) {
      if (key === 'description' || key === 'default') (out as Record<string, unknown>)[key] = value;
      else if (key !== PRUNES_NULLS && key !== 'nullable') throw new CrdSchemaError(walk.path, `"${key}" on an int-or-string field has no structural form`);
    }
    if (nullable) out.nullable = true;
    return out;
  }
  throw new CrdSchemaError(walk.path, `a union of ${types.join(', ')} has no structural schema: a CRD field has one type (enums, a nullable type and int-or-string are the unions it can express)`);
}

// `$ref`s appear only when a schema is registered with an id (.meta({ id })); a structural
// schema has no definitions, so the target is copied in place.
function inline(node: Json, walk: Walk): { node: Json; walk: Walk } {
  const ref = node.$ref;
  if (typeof ref !== 'string') return { node, walk };
  const name = /^#\/(?:definitions|\$defs)\/(.+)$/.exec(ref)?.[1];
  const target = name === undefined ? undefined : walk.definitions[decodeURIComponent(name)];
  if (!isObject(target)) throw new CrdSchemaError(walk.path, `unresolvable $ref ${ref}`);
  if (walk.inlining.includes(ref)) throw new CrdSchemaError(walk.path, `${ref} refers to itself; a structural schema cannot`);
  const { $ref: _ref, ...siblings } = node;
  return inline({ ...target, ...siblings }, { ...walk, inlining: [...walk.inlining, ref] });
}

function schemaType(value: unknown, walk: Walk): JsonSchemaType {
  if (typeof value === 'string' && (JSON_SCHEMA_TYPES as readonly string[]).includes(value)) return value as JsonSchemaType;
  throw new CrdSchemaError(walk.path, `type ${JSON.stringify(value)} has no structural form`);
}

function step(walk: Walk, name: string): Walk {
  const path = name === '[]' ? `${walk.path}[]` : name === '*' ? `${walk.path}[*]` : walk.path ? `${walk.path}.${name}` : name;
  return { ...walk, path };
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asObject(value: unknown, walk: Walk, key: string): Json {
  if (!isObject(value)) throw new CrdSchemaError(walk.path, `"${key}" is not a schema object`);
  return value;
}
