import { z } from 'zod';

// encoding/json's handling of a key given twice in one object, which JSON.parse reduces to its
// last value. Go decodes every occurrence, in order, into the same field: a value of the wrong
// type is a decode error even when a later occurrence fits (the error is kept and returned at
// the end); a later scalar or list replaces the earlier one; a later object is decoded into the
// struct (or map, or pointed-to struct) the earlier one filled, so the fields of both stay; and a
// later null sets a pointer, a slice, a map or a metav1.Time to nil but leaves a struct, a string,
// a number or a bool as it was.

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** An earlier occurrence a later one replaced: Go decoded it all the same, so its type counts. */
export interface Shadowed {
  /** Keys lower-cased (Go matches fields without case), `[]` for a list element. */
  readonly path: readonly string[];
  /** As the document spells it, for messages: `provisioning.state`, `conditions[2].type`. */
  readonly display: string;
  readonly value: Json;
}

type Node =
  | { readonly kind: 'object'; readonly entries: ReadonlyArray<readonly [string, Node]> }
  | { readonly kind: 'array'; readonly items: readonly Node[] }
  | { readonly kind: 'scalar'; readonly value: string | number | boolean | null };

/** The document with every occurrence of every key; `text` must be JSON (JSON.parse took it). */
function parseNodes(text: string): Node {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\r\n'.includes(text[i] as string)) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (): Node => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const entries: Array<readonly [string, Node]> = [];
      ws();
      if (text[i] === '}') {
        i++;
        return { kind: 'object', entries };
      }
      for (;;) {
        ws();
        const key = str();
        ws();
        i++; // ':'
        entries.push([key, value()]);
        ws();
        if (text[i++] === '}') return { kind: 'object', entries };
      }
    }
    if (c === '[') {
      i++;
      const items: Node[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return { kind: 'array', items };
      }
      for (;;) {
        items.push(value());
        ws();
        if (text[i++] === ']') return { kind: 'array', items };
      }
    }
    if (c === '"') return { kind: 'scalar', value: str() };
    const start = i;
    while (i < text.length && /[-+.0-9a-zA-Z]/.test(text[i] as string)) i++;
    return { kind: 'scalar', value: JSON.parse(text.slice(start, i)) as number | boolean | null };
  };
  return value();
}

export function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value);
}

function define(out: { [key: string]: Json }, key: string, value: Json): void {
  // defineProperty, not assignment: a `__proto__` key stays a plain (unknown) key.
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

function display(parent: string, key: string): string {
  return key === '[]' ? parent : parent === '' ? key : `${parent}.${key}`;
}

class Resolver {
  readonly shadowed: Shadowed[] = [];
  // Each object built: its keys by their lower case, so a key given again is found at once (an
  // annotation may hold tens of thousands of keys; a scan per key would be quadratic).
  private readonly folded = new WeakMap<object, Map<string, string>>();

  constructor(private readonly nullResets: (path: readonly string[]) => boolean) {}

  node(n: Node, path: readonly string[], shown: string): Json {
    if (n.kind === 'scalar') return n.value;
    if (n.kind === 'array') return n.items.map((item, index) => this.node(item, [...path, '[]'], `${shown}[${index}]`));
    const out = this.object();
    for (const [key, child] of n.entries) this.assign(out, key, this.node(child, [...path, key.toLowerCase()], display(shown, key)), path, shown);
    return out;
  }

  private object(): { [key: string]: Json } {
    const out: { [key: string]: Json } = {};
    this.folded.set(out, new Map());
    return out;
  }

  /** `out[key] = value` as Go decodes a key into a struct that may hold its field already. */
  private assign(out: { [key: string]: Json }, key: string, value: Json, path: readonly string[], shown: string): void {
    const lower = key.toLowerCase();
    const keys = this.folded.get(out) as Map<string, string>;
    const earlier = keys.get(lower);
    const next = earlier === undefined ? value : this.merge(out[earlier] as Json, value, [...path, lower], display(shown, key));
    if (earlier !== undefined) delete out[earlier];
    define(out, key, next);
    keys.set(lower, key);
  }

  private merge(before: Json, after: Json, path: readonly string[], shown: string): Json {
    if (after === null) return this.nullResets(path) ? null : before;
    if (isObject(before) && isObject(after)) {
      const out = this.object();
      for (const [k, v] of Object.entries(before)) this.assign(out, k, v, path, shown);
      for (const [k, v] of Object.entries(after)) this.assign(out, k, v, path, shown);
      return out;
    }
    if (before !== null) this.shadowed.push({ path, display: shown, value: before });
    return after;
  }
}

/**
 * The document as encoding/json leaves it in a Go value (keys given twice resolved as Go resolves
 * them), and the earlier occurrences that a later one replaced, which Go type-checked all the
 * same. `nullResets(path)`: whether the field at `path` (lower-cased keys, `[]` for a list
 * element) is a pointer, slice, map or time, which a null sets to nil. `text` must be JSON.
 */
export function resolveGoDuplicates(text: string, nullResets: (path: readonly string[]) => boolean): { value: Json; shadowed: readonly Shadowed[] } {
  const resolver = new Resolver(nullResets);
  const value = resolver.node(parseNodes(text), [], '');
  return { value, shadowed: resolver.shadowed };
}

// ---- the Go type of a field, read off the zod schema metalfleet describes it with ---------------

function unwrap(schema: z.ZodType): z.ZodType {
  let s: z.ZodType = schema;
  for (;;) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType;
    else if (s instanceof z.ZodPipe) s = s.out as z.ZodType;
    else return s;
  }
}

function fieldOf(schema: z.ZodObject, key: string): z.ZodType | undefined {
  const shape = schema.shape as Record<string, z.ZodType>;
  if (Object.hasOwn(shape, key)) return shape[key];
  const name = Object.keys(shape).find((f) => f.toLowerCase() === key.toLowerCase());
  return name === undefined ? undefined : shape[name];
}

/** The schema of the field at `path` (as Shadowed has it), or undefined when no field is there. */
export function schemaAt(root: z.ZodType, path: readonly string[]): z.ZodType | undefined {
  let s: z.ZodType | undefined = root;
  for (const step of path) {
    if (s === undefined) return undefined;
    const u = unwrap(s);
    if (step === '[]') s = u instanceof z.ZodArray ? (u.element as z.ZodType) : undefined;
    else if (u instanceof z.ZodObject) s = fieldOf(u, step);
    else if (u instanceof z.ZodRecord) s = u.valueType as z.ZodType;
    else return undefined;
  }
  return s;
}

/**
 * The field a literal's path names (nonIntegerLiterals' form: `conditions[0].observedgeneration`,
 * keys lower-cased) and that path spelled with the schema's field names, or undefined when no
 * field is there.
 */
export function fieldAtLiteralPath(root: z.ZodType, literalPath: string): { schema: z.ZodType; display: string } | undefined {
  let s: z.ZodType | undefined = root;
  let shown = '';
  for (const segment of literalPath.match(/\[\d+\]|[^.[\]]+/g) ?? []) {
    if (s === undefined) return undefined;
    const u = unwrap(s);
    if (segment.startsWith('[')) {
      s = u instanceof z.ZodArray ? (u.element as z.ZodType) : undefined;
      shown += segment;
      continue;
    }
    if (!(u instanceof z.ZodObject)) return undefined;
    const shape = u.shape as Record<string, z.ZodType>;
    const name = Object.keys(shape).find((f) => f.toLowerCase() === segment);
    if (name === undefined) return undefined;
    s = shape[name];
    shown = shown === '' ? name : `${shown}.${name}`;
  }
  return s === undefined ? undefined : { schema: s, display: shown };
}

export type GoKind = 'string' | 'int' | 'float64' | 'bool' | 'struct' | 'slice' | 'map' | 'any';

export function goKind(schema: z.ZodType): GoKind {
  const s = unwrap(schema);
  if (s instanceof z.ZodString || s instanceof z.ZodEnum) return 'string';
  if (s instanceof z.ZodLiteral) return typeof s.value === 'string' ? 'string' : 'any';
  if (s instanceof z.ZodNumber) return s.format === 'safeint' || s.format === 'int32' || s.format === 'int64' || s.isInt ? 'int' : 'float64';
  if (s instanceof z.ZodBoolean) return 'bool';
  if (s instanceof z.ZodObject) return 'struct';
  if (s instanceof z.ZodArray) return 'slice';
  if (s instanceof z.ZodRecord) return 'map';
  if (s instanceof z.ZodUnion) {
    const kinds = new Set((s.options as z.ZodType[]).map(goKind));
    return kinds.size === 1 ? [...kinds][0] as GoKind : 'any';
  }
  return 'any';
}

/** The JSON kind of a decoded value, as messages name it (`null`, `array`, `object`, `string`…). */
export function jsonKind(value: Json): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'object' : typeof value;
}

/**
 * Why Go would not decode `value` into the field `schema` describes (a JSON kind its Go type does
 * not take, a fraction for an int, a key no struct field matches), or null. Only the Go type
 * counts: an enum's values, a pattern or a bound are checked on the decoded value, not here.
 * `where` names the field for messages; `owner` is the Go struct the document decodes into.
 */
export function goTypeError(value: Json, schema: z.ZodType, where: string, owner: string): string | null {
  if (value === null) return null;
  const kind = goKind(schema);
  // Go names the number only when it is one its number type cannot hold (1.5 for an int).
  const literal = typeof value === 'number' && (kind === 'int' || kind === 'float64') ? ` ${value}` : '';
  const mismatch = (): string => `${where}: cannot unmarshal ${jsonKind(value)}${literal} into Go struct field ${owner}.${where} of type ${kind}`;
  switch (kind) {
    case 'any': return null;
    case 'string': return typeof value === 'string' ? null : mismatch();
    case 'bool': return typeof value === 'boolean' ? null : mismatch();
    case 'float64': return typeof value === 'number' ? null : mismatch();
    case 'int': return typeof value === 'number' && Number.isInteger(value) ? null : mismatch();
    case 'slice': {
      if (!Array.isArray(value)) return mismatch();
      const element = (unwrap(schema) as z.ZodArray).element as z.ZodType;
      for (const [i, item] of value.entries()) {
        const error = goTypeError(item, element, `${where}[${i}]`, owner);
        if (error) return error;
      }
      return null;
    }
    case 'map':
    case 'struct': {
      if (!isObject(value)) return mismatch();
      const s = unwrap(schema);
      for (const [key, item] of Object.entries(value)) {
        const field = s instanceof z.ZodObject ? fieldOf(s, key) : (s as z.ZodRecord).valueType as z.ZodType;
        if (field === undefined) return `unknown field "${where}.${key}"`;
        const error = goTypeError(item, field, `${where}.${key}`, owner);
        if (error) return error;
      }
      return null;
    }
  }
}
