// PATCH as h/patch.go runs it (kube-api.md §6): the patch applies to the stored object in the
// request's version, the result is decoded like a request body, then updated with the RV it now
// carries (the current one, unless the patch set another).
import { parse as parseYaml } from 'yaml';
import { decodeObject } from './decode.ts';
import type { FieldValidation } from './decode.ts';
import { apiErrors, failure, KubeApiError } from './errors.ts';
import { forbidden, required } from './field-errors.ts';
import { MAX_JSON_PATCH_OPERATIONS, PatchError, jsonPatch, mergePatch, strategicMergePatch } from './patch.ts';
import { present } from './present.ts';
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
  if (!stored) {
    if (kind !== 'apply' || opts.subresource) throw apiErrors.notFound(res, name);
    const decoded = decodeObject(ctx, patch, body, opts.fieldValidation);
    if (str(metaOf(decoded.obj).name) !== name) {
      throw apiErrors.badRequest(`the name of the object (${str(metaOf(decoded.obj).name)}) does not match the name on the URL (${name})`);
    }
    return { ...createObject(ctx, decoded.obj), warnings: decoded.warnings };
  }
  const current = present(res, ctx.version, stored);
  let patched: unknown;
  try {
    patched = apply(kind, current, patch);
  } catch (e) {
    if (!(e instanceof PatchError)) throw e;
    if (e.decode) throw apiErrors.badRequest(e.message);
    // h/patch.go answers any failed JSON patch operation with this generic 422.
    throw new KubeApiError(failure(422, 'Invalid', 'the server rejected our request due to an error in our request', {}));
  }
  const decoded = decodeObject(ctx, patched, JSON.stringify(patched), opts.fieldValidation);
  return { ...updateObject(ctx, name, decoded.obj, { subresource: opts.subresource }), warnings: decoded.warnings };
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

function apply(kind: PatchKind, current: Obj, patch: unknown): unknown {
  switch (kind) {
    case 'json':
      if (Array.isArray(patch) && patch.length > MAX_JSON_PATCH_OPERATIONS) {
        throw apiErrors.requestTooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`);
      }
      return jsonPatch(current, patch);
    case 'merge':
      return mergePatch(current, patch);
    case 'strategic':
      return strategicMergePatch(current, patch);
    case 'apply':
      return applyConfiguration(current, patch);
  }
}

// The test-server minimum of server-side apply (kube-api.md §6): the applied configuration
// overlays the live object, lists replaced whole. No field ownership, so no conflicts and no
// removal of fields a manager stopped applying.
function applyConfiguration(live: Obj, applied: unknown): unknown {
  if (!isObj(applied)) return applied;
  const out = clone(live);
  for (const [k, v] of Object.entries(applied)) {
    if (v === null) delete out[k];
    else if (isObj(v) && isObj(out[k])) out[k] = applyConfiguration(out[k] as Obj, v);
    else out[k] = clone(v);
  }
  return out;
}
