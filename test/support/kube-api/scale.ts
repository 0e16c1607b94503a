// The scale subresource of Deployments and StatefulSets (pkg/registry/apps/{deployment,statefulset}/storage ScaleREST), which
// `kubectl scale` reads and patches: an autoscaling/v1 Scale made from the Deployment, and a
// write of it that sets only spec.replicas (the Scale's resourceVersion, if any, is a precondition).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseBody } from './decode.ts';
import { apiErrors, failure, KubeApiError } from './errors.ts';
import { invalid } from './field-errors.ts';
import { readBody, sendJson } from './http-io.ts';
import { PatchError, jsonPatch, mergePatch, strategicMergePatch } from './patch.ts';
import { patchKind } from './patch-request.ts';
import { present } from './present.ts';
import { writeQuery } from './query.ts';
import type { Route } from './routes.ts';
import { clone, isObj, metaOf, objectKey, str } from './types.ts';
import type { Obj, ResourceDef } from './types.ts';
import { formatSelector } from './table.ts';
import { storeKey, updateObject } from './writes.ts';
import type { WriteContext } from './writes.ts';

type ResourceRoute = Extract<Route, { type: 'resource' }>;

/** The kinds served with a scale subresource. */
export function hasScale(res: ResourceDef): boolean {
  return res.builtin === 'deployments' || res.builtin === 'statefulsets';
}

export function toScale(obj: Obj): Obj {
  const meta = metaOf(obj);
  const spec = isObj(obj.spec) ? obj.spec : {};
  const status = isObj(obj.status) ? obj.status : {};
  const scaleMeta: Obj = {};
  for (const k of ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp']) if (meta[k] !== undefined) scaleMeta[k] = meta[k];
  return {
    kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: scaleMeta,
    spec: { replicas: typeof spec.replicas === 'number' ? spec.replicas : 1 },
    status: { replicas: typeof status.replicas === 'number' ? status.replicas : 0, selector: formatSelector(spec.selector) },
  };
}

function applyPatch(kind: string, scale: Obj, body: string): unknown {
  let patch: unknown;
  try {
    patch = JSON.parse(body);
  } catch (e) {
    throw apiErrors.badRequest((e as Error).message);
  }
  try {
    if (kind === 'json') return jsonPatch(scale, patch);
    return kind === 'strategic' ? strategicMergePatch(scale, patch) : mergePatch(scale, patch);
  } catch (e) {
    if (!(e instanceof PatchError)) throw e;
    if (e.decode) throw apiErrors.badRequest(e.message);
    throw new KubeApiError(failure(422, 'Invalid', 'the server rejected our request due to an error in our request', {}));
  }
}

/** GET, PUT and PATCH of `…/deployments/{name}/scale` and `…/statefulsets/{name}/scale`. */
export async function handleScale(write: (dryRun: boolean) => WriteContext, r: ResourceRoute, req: IncomingMessage, res: ServerResponse, url: URL): Promise<{ changed: boolean }> {
  const ctx = write(false);
  const stored = ctx.store.peek(storeKey(r.res), objectKey(r.namespace, r.name));
  if (!stored) {
    req.resume();
    throw apiErrors.notFound(r.res, r.name);
  }
  const current = present(r.res, r.version, stored);
  if (r.verb === 'get') {
    sendJson(res, 200, toScale(current));
    return { changed: false };
  }
  if (r.verb !== 'update' && r.verb !== 'patch') throw apiErrors.methodNotSupported(r.res, r.verb ?? req.method ?? '');
  const q = writeQuery(url.searchParams, r.verb === 'update' ? 'UpdateOptions' : 'PatchOptions');
  const text = await readBody(req);
  const scale = r.verb === 'update'
    ? parseBody(r, text, req.headers['content-type'] ?? '')
    : applyPatch(patchKind(r.res, req.headers['content-type'] ?? ''), toScale(current), text);
  const spec = isObj(scale) && isObj(scale.spec) ? scale.spec : {};
  const replicas = spec.replicas ?? 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw apiErrors.invalid('autoscaling', 'Scale', r.name, [invalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
  }
  const next = clone(current);
  next.spec = { ...(isObj(next.spec) ? next.spec : {}), replicas };
  const rv = isObj(scale) && isObj(scale.metadata) ? str(scale.metadata.resourceVersion) : '';
  if (rv) metaOf(next).resourceVersion = rv;
  const out = updateObject(write(q.dryRun), r.name, next);
  sendJson(res, 200, toScale(present(r.res, r.version, out.object)));
  return out;
}
