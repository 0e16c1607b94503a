// Field selectors: which field labels a resource supports (kube-api.md §9) and their values.
import { isObj, metaOf, str } from './types.ts';
import type { Obj, ResourceDef, VersionDef } from './types.ts';

const EVENT_FIELDS = ['involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid',
  'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'reportingComponent', 'source', 'type'];

// Fields whose value is not simply the string at their path, as the kinds' ToSelectableFields
// compute them: a pod's IP is its first podIPs entry (else podIP), counts print as integers (0 when unset), a
// host network as a bool (false when unset), and a Job's `status.successful` is status.succeeded.
const COMPUTED: Readonly<Record<string, Readonly<Record<string, (obj: Obj) => string>>>> = {
  pods: {
    'spec.hostNetwork': (o) => String(at(o, 'spec.hostNetwork') === true),
    'status.podIP': (o) => {
      const ips = at(o, 'status.podIPs');
      // The v1 conversion fills podIPs from podIP when only that is set.
      return Array.isArray(ips) && ips.length > 0 ? scalar(at(ips[0], 'ip')) : scalar(at(o, 'status.podIP'));
    },
  },
  jobs: { 'status.successful': (o) => count(at(o, 'status.succeeded')) },
  replicationcontrollers: { 'status.replicas': (o) => count(at(o, 'status.replicas')) },
};

// The core/v1 and batch/v1 field label conversions of the stored-only workload kinds.
const WORKLOAD_FIELDS: Readonly<Record<string, readonly string[]>> = {
  pods: ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.nominatedNodeName'],
  jobs: ['status.successful'],
  replicationcontrollers: ['status.replicas'],
};

export function supportedFieldLabels(res: ResourceDef, version: VersionDef): string[] {
  const base = res.namespaced ? ['metadata.name', 'metadata.namespace'] : ['metadata.name'];
  switch (res.builtin) {
    case 'secrets': return [...base, 'type'];
    case 'events': return [...base, ...EVENT_FIELDS];
    case 'namespaces': return [...base, 'status.phase'];
    case 'leases': return base;
    case 'pods':
    case 'jobs':
    case 'replicationcontrollers': return [...base, ...WORKLOAD_FIELDS[res.builtin] ?? []];
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
    const computed = res.builtin ? COMPUTED[res.builtin]?.[label] : undefined;
    if (computed) {
      out.set(label, computed(obj));
      continue;
    }
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

function count(v: unknown): string {
  return typeof v === 'number' ? String(v) : '0';
}

function scalar(v: unknown): string {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}
