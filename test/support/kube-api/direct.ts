// Test set-up without HTTP: the same write path as a request (defaults, validation, RVs, watch
// events), minus the HTTP counters. Failures throw KubeApiError with the body a client would get.
import { decodeObject } from './decode.ts';
import type { Target } from './decode.ts';
import { apiErrors } from './errors.ts';
import { listObjects } from './list.ts';
import { patchObject } from './patch-request.ts';
import type { PatchKind } from './patch-request.ts';
import { present } from './present.ts';
import type { Registry } from './registry.ts';
import type { Store } from './store.ts';
import type { Writer } from './managed-fields.ts';
import { clone, groupVersion, metaOf, objectKey, str } from './types.ts';
import type { Obj, ResourceDef } from './types.ts';
import { createObject, deleteObject, storeKey, updateObject } from './writes.ts';
import type { WriteContext } from './writes.ts';

export type KubeObject = Obj & {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; [key: string]: unknown };
};

/** An object by resource (Kind, plural or plural.group), name and, if namespaced, namespace. */
export interface ObjectRef {
  readonly resource: string;
  readonly name: string;
  /** Defaults to `default` for namespaced resources. */
  readonly namespace?: string;
}

export interface DirectListOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

export interface DirectApi {
  create(obj: KubeObject): KubeObject;
  get(ref: ObjectRef): KubeObject | undefined;
  list(resource: string, opts?: DirectListOptions): Promise<KubeObject[]>;
  /** Replace through the main endpoint; without metadata.resourceVersion it is unconditional. */
  update(obj: KubeObject): KubeObject;
  /** Replace through /status; without metadata.resourceVersion it is unconditional. */
  updateStatus(obj: KubeObject): KubeObject;
  patch(ref: ObjectRef, patch: unknown, opts?: { type?: PatchKind; subresource?: 'status' }): KubeObject;
  /** DELETE: removed, or marked with deletionTimestamp while finalizers remain. */
  delete(ref: ObjectRef): { removed: boolean; object: KubeObject };
}

const writerFor = (res: ResourceDef, version: string): Writer => ({ manager: 'kube-api-test', apiVersion: groupVersion(res, version) });

export function directApi(store: Store, registry: Registry): DirectApi {
  const forObject = (obj: KubeObject): WriteContext => {
    const found = registry.byApiVersionKind(str(obj.apiVersion), str(obj.kind));
    if (!found) throw new Error(`kube-api: no served resource for apiVersion ${JSON.stringify(obj.apiVersion)} kind ${JSON.stringify(obj.kind)}`);
    const namespace = found.res.namespaced ? str(obj.metadata?.namespace) || 'default' : '';
    return { store, ...found, namespace, dryRun: false, writer: writerFor(found.res, found.version.name) };
  };
  const forRef = (resource: string, namespace: string | undefined): WriteContext => {
    const found = registry.resolve(resource);
    return { store, ...found, namespace: found.res.namespaced ? namespace ?? 'default' : '', dryRun: false, writer: writerFor(found.res, found.version.name) };
  };
  // Through JSON, as over the wire: `undefined` fields vanish, Dates become strings.
  const decode = (t: Target, obj: KubeObject): Obj => {
    const text = JSON.stringify(obj);
    return decodeObject(t, JSON.parse(text), text, 'Ignore').obj;
  };
  const replace = (obj: KubeObject, subresource: 'status' | undefined): KubeObject => {
    const ctx = forObject(obj);
    const body = decode(ctx, obj);
    const name = str(metaOf(body).name);
    const stored = store.peek(storeKey(ctx.res), objectKey(ctx.namespace, name));
    if (!stored) throw apiErrors.notFound(ctx.res, name);
    if (!str(metaOf(body).resourceVersion)) metaOf(body).resourceVersion = metaOf(stored).resourceVersion;
    return present(ctx.res, ctx.version, updateObject(ctx, name, body, { subresource }).object);
  };
  return {
    create(obj) {
      const ctx = forObject(obj);
      return present(ctx.res, ctx.version, createObject(ctx, decode(ctx, obj)).object);
    },
    get(ref) {
      const ctx = forRef(ref.resource, ref.namespace);
      const obj = store.peek(storeKey(ctx.res), objectKey(ctx.namespace, ref.name));
      return obj ? present(ctx.res, ctx.version, obj) : undefined;
    },
    async list(resource, opts = {}) {
      const ctx = forRef(resource, opts.namespace ?? '');
      const out = await listObjects(ctx, { labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector });
      return out.items.map((o) => present(ctx.res, ctx.version, o));
    },
    update: (obj) => replace(obj, undefined),
    updateStatus: (obj) => replace(obj, 'status'),
    patch(ref, patch, opts = {}) {
      const ctx = forRef(ref.resource, ref.namespace);
      const out = patchObject(ctx, ref.name, opts.type ?? 'merge', JSON.stringify(patch), { subresource: opts.subresource, fieldManager: 'kube-api-test', fieldValidation: 'Ignore' });
      return present(ctx.res, ctx.version, out.object);
    },
    delete(ref) {
      const ctx = forRef(ref.resource, ref.namespace);
      const out = deleteObject(ctx, ref.name);
      return { removed: out.removed, object: present(ctx.res, ctx.version, clone(out.object)) };
    },
  };
}
