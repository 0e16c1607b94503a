// PATCH as h/patch.go runs it (kube-api.md §6): the patch applies to the stored object in the
// request's version, the result is decoded like a request body, then updated with the RV it now
// carries (the current one, unless the patch set another).
import { parse as parseYaml } from 'yaml';
import { decodeObject } from './decode.ts';
import type { FieldValidation } from './decode.ts';
import { apiErrors, failure, KubeApiError } from './errors.ts';
import { forbidden, required } from './field-errors.ts';
import { MAX_JSON_PATCH_OPERATIONS, PatchError, jsonPatch, mergePatch, strategicMergePatch } from './patch.ts';
import { mergeApplied } from './apply-merge.ts';
import { listTypesOf } from './list-types.ts';
import { applyOwned } from './managed-fields.ts';
import { mergeListsOf } from './patch-strategies.ts';
import type { ManagedEntry } from './managed-fields.ts';
import { present } from './present.ts';
import { pruneResource } from './schema-prune.ts';
import { clone, isObj, metaOf, objectKey, str } from './types.ts';
import type { Obj, ResourceDef } from './types.ts';
import { createObject, storeKey, updateObject } from './writes.ts';
import type { WriteContext, WriteResult } from './writes.ts';

export type PatchKind = 'json' | 'merge' | 'strategic' | 'apply';

const MEDIA: Record<string, PatchKind> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

/** The patch type of a Content-Type; strategic merge only for built-in kinds, else 415. */
export function patchKind(res: ResourceDef, contentType: string): PatchKind {
  const media = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  const kind = MEDIA[media];
  const accepted = res.builtin
    ? ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml']
    : ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];
  if (!kind || !accepted.includes(media)) throw apiErrors.unsupportedMediaType(accepted);
  return kind;
}

export interface PatchOptions {
  readonly subresource?: 'status';
  readonly fieldManager?: string;
  readonly force?: boolean;
  readonly fieldValidation: FieldValidation;
}

export interface PatchResult extends WriteResult {
  readonly warnings: readonly string[];
}

export function patchObject(ctx: WriteContext, name: string, kind: PatchKind, body: string, opts: PatchOptions): PatchResult {
  const { res, store } = ctx;
  if (kind === 'apply' && !opts.fieldManager) {
    throw apiErrors.invalidOptions('PatchOptions', [required('fieldManager', 'is required for apply patch')]);
  }
  if (kind !== 'apply' && opts.force !== undefined) {
    throw apiErrors.invalidOptions('PatchOptions', [forbidden('force', 'may not be specified for non-apply patch')]);
  }
  const patch = parsePatch(kind, body);
  const stored = store.peek(storeKey(res), objectKey(res.namespaced ? ctx.namespace : '', name));
  // Only an apply to the object itself creates; anything else finds nothing to patch first.
  if (!stored && (kind !== 'apply' || opts.subresource)) throw apiErrors.notFound(res, name);
  if (kind === 'apply') {
    checkAppliedType(ctx, patch);
    refuseUndeclared(ctx, patch);
  }
  const owned = kind === 'apply' && store.fieldManagement && ctx.writer !== undefined && isObj(patch);
  const writer = ctx.writer && opts.subresource ? { ...ctx.writer, subresource: opts.subresource } : ctx.writer;
  const statusOwned = opts.subresource === 'status' || !ctx.version.status;
  const types = listTypesOf(res, ctx.version);
  const merge = (live: Obj, applied: Obj): Obj => mergeApplied(live, applied, types);
  if (!stored) {
    const decoded = decodeObject(ctx, patch, body, opts.fieldValidation);
    if (str(metaOf(decoded.obj).name) !== name) {
      throw apiErrors.badRequest(`the name of the object (${str(metaOf(decoded.obj).name)}) does not match the name on the URL (${name})`);
    }
    const managed = owned && writer ? metaOf(applyOwned({}, patch as Obj, writer, false, statusOwned, types, merge)).managedFields as ManagedEntry[] : undefined;
    const created = createObject(ctx, decoded.obj, managed);
    return { ...created, warnings: [...decoded.warnings, ...created.warnings ?? []] };
  }
  const current = present(res, ctx.version, stored);
  let patched: unknown;
  try {
    patched = owned && writer ? applyOwned(current, resetFields(patch as Obj, opts.subresource), writer, opts.force === true, statusOwned, types, merge) : apply(kind, current, patch, res, merge);
  } catch (e) {
    if (!(e instanceof PatchError)) throw e;
    if (e.decode) throw apiErrors.badRequest(e.message);
    // h/patch.go answers any failed JSON patch operation with this generic 422.
    throw new KubeApiError(failure(422, 'Invalid', 'the server rejected our request due to an error in our request', {}));
  }
  const decoded = decodeObject(ctx, patched, JSON.stringify(patched), opts.fieldValidation);
  const managed = owned ? metaOf(decoded.obj).managedFields as ManagedEntry[] | undefined ?? [] : undefined;
  const updated = updateObject(ctx, name, decoded.obj, { subresource: opts.subresource, managedFields: managed });
  return { ...updated, warnings: [...decoded.warnings, ...updated.warnings ?? []] };
}

// versionCheckManager, the outermost field manager: the configuration must be of the endpoint's
// group, version and kind, as Unstructured reads them (an apiVersion that does not parse reads as
// none at all). The real server runs it before the `managedFields must be nil` check, which here
// comes first (parsePatch).
function checkAppliedType(ctx: WriteContext, patch: unknown): void {
  const applied = isObj(patch) ? patch : {};
  const apiVersion = typeof applied.apiVersion === 'string' ? applied.apiVersion : '';
  const kind = typeof applied.kind === 'string' ? applied.kind : '';
  const slashes = apiVersion.split('/').length - 1;
  let gvk = '/, Kind=';
  if (slashes <= 1) {
    const [group, version] = slashes === 0 ? ['', apiVersion] : apiVersion.split('/') as [string, string];
    gvk = `${group}/${version}, Kind=${kind}`;
  }
  if (gvk !== `${ctx.res.group}/${ctx.version.name}, Kind=${ctx.res.kind}`) throw apiErrors.badRequest(`invalid object type: ${gvk}`);
}

// The status strategy's reset fields: an apply on /status neither owns nor conflicts on the spec
// it carries (structured-merge-diff filters them out of the applied set and of the comparison),
// and the strategy puts the stored spec back anyway.
function resetFields(applied: Obj, subresource: 'status' | undefined): Obj {
  if (subresource !== 'status' || !('spec' in applied)) return applied;
  const { spec: _spec, ...rest } = applied;
  return rest;
}

// The apply configuration is typed against the schema before anything else (structured-merge-diff's
// ObjectToTyped): an undeclared field fails the request, whatever fieldValidation says, with a plain
// error the server reports as 500 without a reason.
function refuseUndeclared(ctx: WriteContext, patch: unknown): void {
  if (!isObj(patch)) return;
  const undeclared = pruneResource(clone(patch), ctx.version.schema);
  if (undeclared.length === 0) return;
  const errors = undeclared.map((p) => `.${p}: field not declared in schema`);
  const text = errors.length === 1 ? errors[0] as string : `errors:\n${errors.map((e) => `  ${e}`).join('\n')}`;
  const gv = ctx.res.group ? `${ctx.res.group}/${ctx.version.name}` : `/${ctx.version.name}`;
  throw apiErrors.plain500(`failed to create typed patch object (${gv}, Kind=${ctx.res.kind}): ${text}`);
}

function parsePatch(kind: PatchKind, body: string): unknown {
  if (kind === 'apply') {
    let applied: unknown;
    try {
      applied = parseYaml(body);
    } catch (e) {
      throw apiErrors.badRequest(`error decoding YAML: ${(e as Error).message}`);
    }
    if (isObj(applied) && isObj(applied.metadata) && applied.metadata.managedFields !== undefined) {
      throw apiErrors.badRequest('metadata.managedFields must be nil');
    }
    return applied;
  }
  try {
    return JSON.parse(body);
  } catch (e) {
    if (kind === 'merge' || kind === 'strategic') throw apiErrors.badRequest('Invalid JSON Patch');
    throw apiErrors.badRequest((e as Error).message);
  }
}

function apply(kind: PatchKind, current: Obj, patch: unknown, res: ResourceDef, merge: (live: Obj, applied: Obj) => Obj): unknown {
  switch (kind) {
    case 'json':
      if (Array.isArray(patch) && patch.length > MAX_JSON_PATCH_OPERATIONS) {
        throw apiErrors.requestTooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`);
      }
      return jsonPatch(current, patch);
    case 'merge':
      return mergePatch(current, patch);
    case 'strategic':
      return strategicMergePatch(current, patch, mergeListsOf(res.builtin));
    case 'apply':
      return isObj(patch) ? merge(current, patch) : patch;
  }
}
