import type { JsonSchemaProps } from '../../../api/crd/index.ts';

/** One RFC 6902 operation; defaulting only ever adds. */
export type AddOperation = { op: 'add'; path: string; value: unknown };

// RFC 6901: "~" and "/" in a key (annotation names have slashes) are escaped.
function pointer(path: readonly string[]): string {
  return path.map((p) => `/${p.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The defaults a structural schema declares that `obj` lacks, as the API server applies them
 * (reference/kube-api.md §8): a default fills a missing field of an object that is present; it
 * never creates the parent, never replaces a value the user set (null included, on a nullable
 * field), and reaches into array items. `skip` names top-level fields left alone (status, which
 * only the controller writes, and metadata).
 */
export function schemaDefaults(schema: JsonSchemaProps, obj: unknown, skip: ReadonlySet<string> = new Set()): AddOperation[] {
  const ops: AddOperation[] = [];
  walk(schema, obj, [], ops, skip);
  return ops;
}

function walk(schema: JsonSchemaProps, value: unknown, path: string[], ops: AddOperation[], skip: ReadonlySet<string>): void {
  if (Array.isArray(value)) {
    const items = schema.items;
    if (items) value.forEach((item, i) => walk(items, item, [...path, String(i)], ops, skip));
    return;
  }
  if (!isObject(value) || !schema.properties) return;
  for (const [key, child] of Object.entries(schema.properties)) {
    if (path.length === 0 && skip.has(key)) continue;
    if (!(key in value)) {
      if (child.default !== undefined) ops.push({ op: 'add', path: pointer([...path, key]), value: filled(child, structuredClone(child.default)) });
      continue;
    }
    walk(child, value[key], [...path, key], ops, skip);
  }
}

// A defaulted object gets its own fields' defaults too, as the API server's defaulting recurses
// into what it just set.
function filled(schema: JsonSchemaProps, value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = schema.items;
    return items ? value.map((item) => filled(items, item)) : value;
  }
  if (!isObject(value) || !schema.properties) return value;
  for (const [key, child] of Object.entries(schema.properties)) {
    if (key in value) value[key] = filled(child, value[key]);
    else if (child.default !== undefined) value[key] = filled(child, structuredClone(child.default));
  }
  return value;
}
