// One handler per verb on a resource path: parse the request at the edge, run the write, list or
// watch logic, answer with the status code and body the API server would.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeObject, parseBody } from './decode.ts';
import { KubeApiError, apiErrors, successStatus } from './errors.ts';
import { readBody, readBytes, sendJson, warningHeaders } from './http-io.ts';
import { decodesProtobuf, protobufToJson } from './protobuf.ts';
import { duplicateFields } from './duplicates.ts';
import { includeObject, toTable, wantsTable } from './table.ts';
import { listObjects, parseRv } from './list.ts';
import { asPartial, asPartialList, mismatch, partialTarget } from './partial-metadata.ts';
import { patchKind, patchObject } from './patch-request.ts';
import { present, presentList } from './present.ts';
import { handleScale, hasScale } from './scale.ts';
import { deleteQuery, listQuery, validateListQuery, writeQuery } from './query.ts';
import type { Route } from './routes.ts';
import type { Store } from './store.ts';
import { groupVersion, metaOf, objectKey, str } from './types.ts';
import { defaultManager } from './managed-fields.ts';
import type { WatchHub } from './watch.ts';
import { createObject, deleteObject, storeKey, updateObject } from './writes.ts';
import type { WriteContext } from './writes.ts';

export type ResourceRoute = Extract<Route, { type: 'resource' }>;

export interface HandlerContext {
  readonly store: Store;
  readonly hub: WatchHub;
}

export interface Handled {
  /** A write that changed the store (for the status-write counters). */
  readonly changed: boolean;
}

const NOTHING: Handled = { changed: false };
const FUTURE_RV_WAIT_MS = 3_000;

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** A create/update body as JSON text: kubectl sends built-in kinds in protobuf. */
async function readObjectBody(r: ResourceRoute, req: IncomingMessage): Promise<{ text: string; contentType: string }> {
  const contentType = req.headers['content-type'] ?? '';
  const bytes = await readBytes(req);
  if (contentType.split(';')[0]?.trim().toLowerCase() === PROTOBUF && decodesProtobuf(r.res)) {
    return { text: protobufToJson(r.res, bytes), contentType: 'application/json' };
  }
  return { text: bytes.toString('utf8'), contentType };
}

// Only JSON bodies are scanned (YAML bodies with a repeated key fail to parse), and only when
// the answer depends on it.
function jsonDuplicates(text: string, contentType: string, validation: string): string[] {
  const media = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (validation === 'Ignore' || (media !== '' && media !== 'application/json')) return [];
  return duplicateFields(text);
}

export async function handleResource(ctx: HandlerContext, r: ResourceRoute, req: IncomingMessage, res: ServerResponse, url: URL): Promise<Handled> {
  const { res: def, version, name, subresource } = r;
  const params = url.searchParams;
  const writer = { manager: params.get('fieldManager') || defaultManager(req.headers['user-agent']), apiVersion: groupVersion(def, version.name) };
  const write = (dryRun: boolean): WriteContext => ({ store: ctx.store, res: def, version, namespace: r.namespace, dryRun, writer });
  if (subresource === 'scale' && hasScale(def)) return handleScale(write, r, req, res, url);
  if (subresource && !(subresource === 'status' && version.status)) throw apiErrors.notFound(def, name);
  if (subresource && r.verb !== 'get' && r.verb !== 'update' && r.verb !== 'patch') throw apiErrors.methodNotSupported(def, r.verb ?? req.method ?? '');
  // The CRD handler runs UpdateResource/PatchResource for these, whose first step (Namer.Name)
  // refuses a request without a name.
  if (!name && !def.builtin && (r.verb === 'update' || r.verb === 'patch')) throw apiErrors.badRequest('name must be provided');
  switch (r.verb) {
    case 'get': {
      const q = listQuery(params);
      if (q.resourceVersion && q.resourceVersion !== '0') {
        const rv = parseRv(q.resourceVersion);
        if (!(await ctx.store.waitForRv(rv, FUTURE_RV_WAIT_MS))) throw apiErrors.tooLargeResourceVersion(rv, ctx.store.currentRv());
      }
      const obj = ctx.store.peek(storeKey(def), objectKey(r.namespace, name));
      if (!obj) throw apiErrors.notFound(def, name);
      const shown = present(def, version, obj);
      const partial = partialTarget(req.headers.accept);
      if (partial) {
        const err = mismatch(def, partial, false);
        if (err) throw err;
        sendJson(res, 200, asPartial(shown, partial.apiVersion));
        return NOTHING;
      }
      // The status scope shares the main scope's TableConvertor (customresource_handler.go), so
      // a /status GET as a Table has the printer columns too (`kubectl get --subresource=status`).
      if (wantsTable(req.headers.accept)) {
        sendJson(res, 200, toTable(def, version, [shown], { resourceVersion: str(metaOf(shown).resourceVersion) }, includeObject(params.get('includeObject'))));
      } else sendJson(res, 200, shown);
      return NOTHING;
    }
    case 'list': {
      const q = listQuery(params);
      validateListQuery(q, false);
      const partial = partialTarget(req.headers.accept);
      const err = partial && mismatch(def, partial, true);
      if (err) throw err;
      const list = await listObjects({ store: ctx.store, res: def, version, namespace: r.namespace }, q);
      if (partial) sendJson(res, 200, asPartialList(list.items.map((o) => present(def, version, o)), list.metadata, partial.apiVersion));
      else if (wantsTable(req.headers.accept)) {
        const shown = list.items.map((o) => present(def, version, o));
        sendJson(res, 200, toTable(def, version, shown, list.metadata, includeObject(params.get('includeObject'))));
      } else sendJson(res, 200, presentList(def, version, list.items, list.metadata));
      return NOTHING;
    }
    case 'watch': {
      const q = listQuery(params);
      validateListQuery(q, true);
      const table = wantsTable(req.headers.accept) ? includeObject(params.get('includeObject')) : undefined;
      // A watch streams single objects: either partial kind is sent as PartialObjectMetadata.
      const partial = partialTarget(req.headers.accept);
      ctx.hub.serve({ res: def, version, namespace: r.namespace, name }, q, req, res, table, partial?.apiVersion);
      return NOTHING;
    }
    case 'create': {
      if (name) throw apiErrors.methodNotSupported(def, 'create');
      const q = writeQuery(params, 'CreateOptions');
      const { text, contentType } = await readObjectBody(r, req);
      const decoded = decodeObject(r, parseBody(r, text, contentType), text, q.fieldValidation, jsonDuplicates(text, contentType, q.fieldValidation));
      const out = createObject(write(q.dryRun), decoded.obj);
      sendJson(res, 201, present(def, version, out.object), warningHeaders([...decoded.warnings, ...out.warnings ?? []]));
      return out;
    }
    case 'update': {
      const q = writeQuery(params, 'UpdateOptions');
      const { text, contentType } = await readObjectBody(r, req);
      const decoded = decodeObject(r, parseBody(r, text, contentType), text, q.fieldValidation, jsonDuplicates(text, contentType, q.fieldValidation));
      const out = updateObject(write(q.dryRun), name, decoded.obj, { subresource: subresource === 'status' ? 'status' : undefined });
      sendJson(res, out.created ? 201 : 200, present(def, version, out.object), warningHeaders([...decoded.warnings, ...out.warnings ?? []]));
      return out;
    }
    case 'patch': {
      const q = writeQuery(params, 'PatchOptions');
      const kind = patchKind(def, req.headers['content-type'] ?? '');
      const text = await readBody(req);
      const out = patchObject(write(q.dryRun), name, kind, text, {
        subresource: subresource === 'status' ? 'status' : undefined, fieldManager: q.fieldManager, force: q.force, fieldValidation: q.fieldValidation,
      });
      sendJson(res, out.created ? 201 : 200, present(def, version, out.object), warningHeaders(out.warnings));
      return out;
    }
    case 'delete': {
      const opts = deleteQuery(params, await readBody(req));
      const out = deleteObject(write(opts.dryRun), name, opts);
      if (out.removed) sendJson(res, 200, successStatus(def, name, str(metaOf(out.object).uid)));
      else sendJson(res, opts.orphanDependents === false ? 202 : 200, present(def, version, out.object));
      return out;
    }
    case 'deletecollection': {
      // Store.DeleteCollection: list what matches, delete each item with the request's options
      // (a missing one is skipped, any other failure is the answer), then answer with that list.
      const q = listQuery(params);
      validateListQuery(q, false);
      const opts = deleteQuery(params, await readBody(req));
      const list = await listObjects({ store: ctx.store, res: def, version, namespace: r.namespace }, q);
      let changed = false;
      for (const o of list.items) {
        const meta = metaOf(o);
        try {
          changed = deleteObject({ ...write(opts.dryRun), namespace: str(meta.namespace) }, str(meta.name), opts).changed || changed;
        } catch (e) {
          if (!(e instanceof KubeApiError && e.code === 404)) throw e;
        }
      }
      sendJson(res, 200, presentList(def, version, list.items, list.metadata));
      return { changed };
    }
    default:
      throw apiErrors.methodNotSupported(def, (req.method ?? '').toLowerCase());
  }
}
