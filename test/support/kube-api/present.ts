// Objects on the way out: in the version the client asked for, defaults applied on read (as the
// server defaults reads from storage), keys in the order the real encoder writes them.
import { KEY_ORDER } from './builtin.ts';
import { orderKeys, sortKeys } from './json.ts';
import { applyDefaults } from './schema-default.ts';
import { clone, groupVersion, isObj, isTyped } from './types.ts';
import type { Obj, ResourceDef, VersionDef } from './types.ts';

export function present(res: ResourceDef, version: VersionDef, stored: Obj): Obj {
  const obj = clone(stored);
  obj.apiVersion = groupVersion(res, version.name);
  obj.kind = res.kind;
  if (!res.builtin) {
    applyDefaults(obj, version.schema);
    return sortKeys(obj) as Obj;
  }
  const order = KEY_ORDER[res.builtin];
  const out = orderKeys(obj, order[''] ?? []);
  for (const [field, keys] of Object.entries(order)) {
    if (field && isObj(out[field])) out[field] = orderKeys(out[field] as Obj, keys);
  }
  return out;
}

/** A list body; built-in list items leave out apiVersion and kind (kube-api.md §1). */
export function presentList(res: ResourceDef, version: VersionDef, items: readonly Obj[], metadata: Obj): Obj {
  const shown = items.map((o) => {
    const obj = present(res, version, o);
    if (isTyped(res)) {
      delete obj.apiVersion;
      delete obj.kind;
    }
    return obj;
  });
  const gv = groupVersion(res, version.name);
  return isTyped(res)
    ? { kind: res.listKind, apiVersion: gv, metadata, items: shown }
    : { apiVersion: gv, kind: res.listKind, metadata, items: shown };
}

/** The object of a BOOKMARK event: only the kind and the RV. */
export function bookmark(res: ResourceDef, version: VersionDef, rv: number, annotations?: Record<string, string>): Obj {
  const metadata: Obj = { resourceVersion: String(rv) };
  if (annotations) metadata.annotations = annotations;
  const gv = groupVersion(res, version.name);
  return isTyped(res) ? { kind: res.kind, apiVersion: gv, metadata } : { apiVersion: gv, kind: res.kind, metadata };
}
