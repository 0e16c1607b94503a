// Field selectors: which field labels a resource supports (kube-api.md §9) and their values.
import { isObj, metaOf, str } from './types.ts';
import type { Obj, ResourceDef, VersionDef } from './types.ts';

const EVENT_FIELDS = ['involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid',
  'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'reportingComponent', 'source', 'type'];

export function supportedFieldLabels(res: ResourceDef, version: VersionDef): string[] {
  const base = res.namespaced ? ['metadata.name', 'metadata.namespace'] : ['metadata.name'];
  switch (res.builtin) {
    case 'secrets': return [...base, 'type'];
    case 'events': return [...base, ...EVENT_FIELDS];
    case 'namespaces': return [...base, 'status.phase'];
    case 'leases': return base;
    default: return [...base, ...version.selectableFields];
  }
}

export function fieldValues(res: ResourceDef, version: VersionDef, obj: Obj): Map<string, string> {
  const out = new Map<string, string>();
  const meta = metaOf(obj);
  out.set('metadata.name', str(meta.name));
  if (res.namespaced) out.set('metadata.namespace', str(meta.namespace));
  for (const label of supportedFieldLabels(res, version)) {
    if (out.has(label)) continue;
    // Events select `source` by source.component.
    const path = label === 'source' ? 'source.component' : label;
    out.set(label, scalar(at(obj, path)));
  }
  return out;
}

function at(obj: unknown, path: string): unknown {
  let node = obj;
  for (const k of path.split('.')) node = isObj(node) ? node[k] : undefined;
  return node;
}

function scalar(v: unknown): string {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}
