// OpenAPI v3 validation of a custom resource the way apiextensions runs kube-openapi's validator
// and turns its results into field errors (kube-api.md §8, `kubeOpenAPIResultToFieldErrors`).
// Order per node follows kube-openapi: type, junctors, string, format, number, array, enum, object.
// Required fields come first in an object, then properties in schema order (the real order is Go
// map order, i.e. random, so any fixed order is faithful).
import { fieldError, goFloat, goQuote, invalid, notSupported, required, tooLong } from './field-errors.ts';
import type { FieldError } from './field-errors.ts';
import { validFormat } from './schema-formats.ts';
import { additionalSchema } from './schema.ts';
import type { JsonSchema } from './schema.ts';
import { deepEqual } from './json.ts';
import { isObj } from './types.ts';

/** The old value at the same place, for ratcheting on update; absent = nothing to compare. */
type Old = { readonly value: unknown } | undefined;

/**
 * Field errors for `value` under `schema`. With `old` (an update), a subtree equal to the old
 * value at the same place is not validated again (CRD validation ratcheting).
 */
export function validateSchema(value: unknown, schema: JsonSchema, old?: Old, path = ''): FieldError[] {
  const out: FieldError[] = [];
  walk(value, schema, path, old, out);
  return out;
}

function walk(value: unknown, s: JsonSchema, path: string, old: Old, out: FieldError[]): void {
  if (old !== undefined && deepEqual(old.value, value)) return;
  const at = path || '.';
  const types = s['x-kubernetes-int-or-string'] ? ['integer', 'string'] : s.type ? [s.type] : [];
  const actual = jsonType(value);
  if (value === null) {
    if (types.length > 0 && !s.nullable) out.push(typeError(path, at, types, 'null'));
  } else if (types.length > 0 && !types.includes(actual) && !(actual === 'integer' && types.includes('number'))) {
    out.push(typeError(path, at, types, actual));
  }
  junctors(value, s, path, at, out);
  if (typeof value === 'string') strings(value, s, path, at, out);
  if (typeof value === 'number') numbers(value, s, path, at, out);
  if (Array.isArray(value)) arrays(value, s, path, at, old, out);
  if (s.enum !== undefined && !s.enum.some((e) => deepEqual(e, value))) {
    out.push(notSupported(path, value, s.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)))));
  }
  if (isObj(value)) objects(value, s, path, at, old, out);
}

function typeError(path: string, at: string, types: readonly string[], actual: string): FieldError {
  return fieldError('TypeInvalid', path, actual, `${at} in body must be of type ${types.join(',')}: ${goQuote(actual)}`);
}

function strings(value: string, s: JsonSchema, path: string, at: string, out: FieldError[]): void {
  const length = [...value].length;
  if (s.maxLength !== undefined && length > s.maxLength) out.push(tooLong(path, s.maxLength));
  if (s.minLength !== undefined && length < s.minLength) out.push(invalid(path, value, `${at} in body should be at least ${s.minLength} chars long`));
  if (s.pattern !== undefined && !new RegExp(s.pattern).test(value)) out.push(invalid(path, value, `${at} in body should match '${s.pattern}'`));
  if (s.format !== undefined && !validFormat(s.format, value)) {
    out.push(fieldError('TypeInvalid', path, value, `${at} in body must be of type ${s.format}: ${goQuote(value)}`));
  }
}

function numbers(value: number, s: JsonSchema, path: string, at: string, out: FieldError[]): void {
  if (s.multipleOf !== undefined && s.multipleOf > 0 && !Number.isInteger(value / s.multipleOf)) {
    out.push(invalid(path, value, `${at} in body should be a multiple of ${goFloat(s.multipleOf)}`));
  }
  if (s.maximum !== undefined) {
    if (s.exclusiveMaximum ? value >= s.maximum : value > s.maximum) {
      out.push(invalid(path, value, `${at} in body should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${goFloat(s.maximum)}`));
    }
  }
  if (s.minimum !== undefined) {
    if (s.exclusiveMinimum ? value <= s.minimum : value < s.minimum) {
      out.push(invalid(path, value, `${at} in body should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${goFloat(s.minimum)}`));
    }
  }
}

function arrays(value: unknown[], s: JsonSchema, path: string, at: string, old: Old, out: FieldError[]): void {
  if (s.minItems !== undefined && value.length < s.minItems) out.push(invalid(path, value.length, `${at} in body should have at least ${s.minItems} items`));
  if (s.maxItems !== undefined && value.length > s.maxItems) out.push(fieldError('TooMany', path, value.length, `must have at most ${s.maxItems} items`));
  if (s.items) {
    const olds = correlate(value, s, old);
    value.forEach((item, i) => walk(item, s.items as JsonSchema, `${path}[${i}]`, olds[i], out));
  }
  listInvariants(value, s, path, out);
}

/** Old items for ratcheting: only map and set lists correlate items (by key or by value). */
function correlate(value: unknown[], s: JsonSchema, old: Old): Old[] {
  const before = old !== undefined && Array.isArray(old.value) ? old.value : undefined;
  const type = s['x-kubernetes-list-type'];
  if (!before || (type !== 'map' && type !== 'set')) return value.map(() => undefined);
  const keys = s['x-kubernetes-list-map-keys'] ?? [];
  return value.map((item) => {
    const match = type === 'set'
      ? before.find((b) => deepEqual(b, item))
      : before.find((b) => isObj(b) && isObj(item) && keys.every((k) => deepEqual(b[k], item[k])));
    return match === undefined ? undefined : { value: match };
  });
}

// List-type invariants (ValidateListSetsAndMaps): no repeated set items or map keys.
function listInvariants(value: unknown[], s: JsonSchema, path: string, out: FieldError[]): void {
  const type = s['x-kubernetes-list-type'];
  if (type === 'set') {
    value.forEach((item, i) => {
      if (value.findIndex((other) => deepEqual(other, item)) < i) out.push(fieldError('Duplicate', `${path}[${i}]`, item));
    });
  } else if (type === 'map') {
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    const keyOf = (item: unknown): Record<string, unknown> => Object.fromEntries(keys.map((k) => [k, isObj(item) ? item[k] : undefined]));
    value.forEach((item, i) => {
      if (value.findIndex((other) => deepEqual(keyOf(other), keyOf(item))) < i) out.push(fieldError('Duplicate', `${path}[${i}]`, keyOf(item)));
    });
  }
}

function objects(value: Record<string, unknown>, s: JsonSchema, path: string, at: string, old: Old, out: FieldError[]): void {
  const count = Object.keys(value).length;
  // kube-openapi stops at a property-count failure without looking inside.
  if (s.minProperties !== undefined && count < s.minProperties) {
    out.push(invalid(path, count, `${at} in body should have at least ${s.minProperties} properties`));
    return;
  }
  if (s.maxProperties !== undefined && count > s.maxProperties) {
    out.push(fieldError('TooMany', path, count, `must have at most ${s.maxProperties} items`));
    return;
  }
  for (const k of s.required ?? []) if (!(k in value)) out.push(required(child(path, k)));
  const before = old !== undefined && isObj(old.value) ? old.value : undefined;
  const oldAt = (k: string): Old => (before && k in before ? { value: before[k] } : undefined);
  for (const [k, prop] of Object.entries(s.properties ?? {})) {
    if (k in value) walk(value[k], prop, child(path, k), oldAt(k), out);
  }
  const extra = additionalSchema(s);
  if (extra && !s['x-kubernetes-preserve-unknown-fields']) {
    for (const [k, v] of Object.entries(value)) {
      if (!(s.properties && k in s.properties)) walk(v, extra, child(path, k), oldAt(k), out);
    }
  }
}

// allOf/anyOf/oneOf/not. Structural schemas give junctors no type, so a branch is checked with
// the same validators as its parent's value. [?] kube-openapi picks the "best" failing anyOf
// branch by match count; the first branch is reported here.
function junctors(value: unknown, s: JsonSchema, path: string, at: string, out: FieldError[]): void {
  for (const branch of s.allOf ?? []) walk(value, branch, path, undefined, out);
  if (s.anyOf && s.anyOf.length > 0) {
    const results = s.anyOf.map((b) => validateSchema(value, b, undefined, path));
    if (!results.some((r) => r.length === 0)) {
      out.push(invalid(path, '', `${at} in body must validate at least one schema (anyOf)`), ...(results[0] ?? []));
    }
  }
  if (s.oneOf && s.oneOf.length > 0) {
    const results = s.oneOf.map((b) => validateSchema(value, b, undefined, path));
    const passed = results.filter((r) => r.length === 0).length;
    if (passed !== 1) {
      out.push(invalid(path, '', `${at} in body must validate one and only one schema (oneOf)`), ...(passed === 0 ? results[0] ?? [] : []));
    }
  }
  if (s.not && validateSchema(value, s.not, undefined, path).length === 0) {
    out.push(invalid(path, '', `${at} in body must not validate the schema (not)`));
  }
}

export function jsonType(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'object') return 'object';
  return typeof value;
}

function child(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}
