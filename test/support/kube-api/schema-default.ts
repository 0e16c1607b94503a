// Defaulting (structuraldefaulting.Default): a default fills a missing field, or a null on a
// non-nullable one, of an object that exists; defaults inside a filled default apply too.
import { additionalSchema } from './schema.ts';
import type { JsonSchema } from './schema.ts';
import { clone, isObj } from './types.ts';

export function applyDefaults(x: unknown, s: JsonSchema | undefined): void {
  if (!s) return;
  if (isObj(x)) {
    for (const [k, prop] of Object.entries(s.properties ?? {})) {
      if (prop.default === undefined) continue;
      if (!(k in x) || (x[k] === null && !prop.nullable)) x[k] = clone(prop.default);
    }
    const extra = additionalSchema(s);
    for (const [k, v] of Object.entries(x)) {
      const prop = s.properties?.[k];
      if (prop) applyDefaults(v, prop);
      else if (extra) {
        if (v === null && !extra.nullable && extra.default !== undefined) x[k] = clone(extra.default);
        applyDefaults(x[k], extra);
      }
    }
  } else if (Array.isArray(x)) {
    const items = s.items;
    if (!items) return;
    x.forEach((v, i) => {
      if (v === null && !items.nullable && items.default !== undefined) x[i] = clone(items.default);
      applyDefaults(x[i], items);
    });
  }
}
