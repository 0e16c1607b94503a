// What an update keeps from the stored object (kube-api.md §5, `cr/strategy.go`,
// `cr/status_strategy.go`): the main endpoint cannot change status when the status subresource is
// on, /status can change nothing but status, and only what the kind's strategy compares (non-metadata
// for CRs) bumps generation.
import { deepEqual } from './json.ts';
import { clone, hasGeneration, isObj, metaOf } from './types.ts';
import type { Obj, ResourceDef, VersionDef } from './types.ts';

/** PUT/PATCH on the object: status restored from `old` when the subresource exists. */
export function prepareMainUpdate(res: ResourceDef, version: VersionDef, obj: Obj, old: Obj): Obj {
  const next = clone(obj);
  if (version.status) {
    if ('status' in old) next.status = clone(old.status);
    else delete next.status;
  }
  // Namespace finalizers change only through /finalize.
  if (res.builtin === 'namespaces' && isObj(old.spec)) {
    const spec = isObj(next.spec) ? next.spec : (next.spec = {});
    spec.finalizers = clone(old.spec.finalizers);
  }
  const meta = metaOf(next);
  const oldMeta = metaOf(old);
  if (hasGeneration(res)) {
    meta.generation = oldMeta.generation;
    if (!deepEqual(generationInput(res, next), generationInput(res, old))) meta.generation = (typeof oldMeta.generation === 'number' ? oldMeta.generation : 0) + 1;
  } else {
    delete meta.generation;
  }
  keepSystemFields(next, old);
  return next;
}

/** PUT/PATCH on /status: the stored object with the request's status (none = removed). */
export function prepareStatusUpdate(_res: ResourceDef, obj: Obj, old: Obj): Obj {
  const next = clone(old);
  if ('status' in obj) next.status = clone(obj.status);
  else delete next.status;
  return next;
}

// What bumps generation: a Deployment's spec or annotations (they are copied to its ReplicaSets), a
// StatefulSet's, PDB's or NetworkPolicy's spec, a webhook configuration's webhooks (their strategies' PrepareForUpdate); for CRs and
// CRDs, anything but metadata.
function generationInput(res: ResourceDef, obj: Obj): unknown {
  switch (res.builtin) {
    case 'deployments': return [obj.spec, metaOf(obj).annotations];
    case 'statefulsets':
    case 'poddisruptionbudgets':
    case 'networkpolicies': return obj.spec;
    case 'validatingwebhookconfigurations':
    case 'mutatingwebhookconfigurations': return obj.webhooks;
    default: return nonMetadata(obj);
  }
}

// copyNonMetadata: everything but metadata (apiVersion too: both sides are in the storage version
// on the real server, while here the request may name another served version).
function nonMetadata(obj: Obj): Obj {
  const { metadata: _m, apiVersion: _v, ...rest } = obj;
  return rest;
}

// rest.BeforeUpdate: uid, creationTimestamp and the deletion fields are the stored ones.
function keepSystemFields(obj: Obj, old: Obj): void {
  const meta = metaOf(obj);
  const oldMeta = metaOf(old);
  for (const k of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds']) {
    if (oldMeta[k] === undefined) delete meta[k];
    else meta[k] = oldMeta[k];
  }
  delete meta.managedFields;
}
