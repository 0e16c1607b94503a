// Pruning of fields the schema does not declare (structuralpruning.PruneWithOptions) and of
// nulls on non-nullable fields without a default (PruneNonNullableNullsWithoutDefaults).
// Both mutate the object in place; metadata is left to meta.ts, as the server coerces it apart.
import { additionalSchema, preservesUnknown } from './schema.ts';
import type { JsonSchema } from './schema.ts';
import { isObj } from './types.ts';
import type { Obj } from './types.ts';

const ROOT_META = new Set(['apiVersion', 'kind', 'metadata']);

/** Prunes a whole resource; returns the pruned paths (`spec.foo`, `spec.items[0].bar`). */
export function pruneResource(obj: Obj, schema: JsonSchema | undefined): string[] {
  const pruned: string[] = [];
  const s = schema ?? {};
  if (preservesUnknown(s)) {
    skipPrune(obj, s, [], pruned, true);
  } else {
    for (const [k, v] of Object.entries(obj)) {
      if (ROOT_META.has(k) && (k === 'metadata' ? isObj(v) : typeof v === 'string')) continue;
      pruneField(obj, k, v, s, [], pruned);
    }
  }
  pruneNulls(obj, s);
  return pruned;
}

function pruneField(obj: Obj, k: string, v: unknown, s: JsonSchema, path: string[], pruned: string[]): void {
  const prop = s.properties?.[k] ?? additionalSchema(s);
  if (prop) prune(v, prop, [...path, k], pruned);
  else {
    pruned.push([...path, k].join('.'));
    delete obj[k];
  }
}

function prune(x: unknown, s: JsonSchema | undefined, path: string[], pruned: string[]): void {
  if (s && preservesUnknown(s)) {
    skipPrune(x, s, path, pruned, false);
    return;
  }
  if (isObj(x)) {
    for (const [k, v] of Object.entries(x)) {
      if (s && embeddedMeta(s, k, v)) continue;
      if (s) pruneField(x, k, v, s, path, pruned);
      else {
        pruned.push([...path, k].join('.'));
        delete x[k];
      }
    }
  } else if (Array.isArray(x)) {
    x.forEach((item, i) => prune(item, s?.items, indexed(path, i), pruned));
  }
}

// Under x-kubernetes-preserve-unknown-fields unknown keys stay, but declared ones are pruned inside.
function skipPrune(x: unknown, s: JsonSchema, path: string[], pruned: string[], root: boolean): void {
  if (isObj(x)) {
    for (const [k, v] of Object.entries(x)) {
      if ((root || s['x-kubernetes-embedded-resource']) && ROOT_META.has(k)) continue;
      const prop = s.properties?.[k] ?? (s.additionalProperties === true ? undefined : additionalSchema(s));
      if (prop) prune(v, prop, [...path, k], pruned);
    }
  } else if (Array.isArray(x) && s.items) {
    x.forEach((item, i) => skipPrune(item, s.items as JsonSchema, indexed(path, i), pruned, false));
  }
}

function embeddedMeta(s: JsonSchema, k: string, v: unknown): boolean {
  if (!s['x-kubernetes-embedded-resource']) return false;
  return k === 'metadata' ? isObj(v) : (k === 'apiVersion' || k === 'kind') && typeof v === 'string';
}

function indexed(path: string[], i: number): string[] {
  if (path.length === 0) return [`[${i}]`];
  return [...path.slice(0, -1), `${path[path.length - 1]}[${i}]`];
}

const nonNullableNull = (v: unknown, s: JsonSchema | undefined): boolean => v === null && s !== undefined && !s.nullable;

export function pruneNulls(x: unknown, s: JsonSchema | undefined): void {
  if (!s) return;
  if (isObj(x)) {
    for (const [k, v] of Object.entries(x)) {
      const prop = s.properties?.[k] ?? additionalSchema(s);
      if (!prop) continue;
      if (nonNullableNull(v, prop) && prop.default === undefined) delete x[k];
      else pruneNulls(v, prop);
    }
  } else if (Array.isArray(x)) {
    for (const item of x) pruneNulls(item, s.items);
  }
}
