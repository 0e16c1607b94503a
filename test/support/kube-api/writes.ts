// Create, update (main and /status) and delete with the registry's rules, in the registry's order
// (kube-api.md §5, §7; `registry/generic/registry/store.go`, `rest/create.go`, `rest/update.go`).
import { randomUUID } from 'node:crypto';
import { resetStatusOnCreate } from './builtin-defaults.ts';
import { canonicalizeBuiltin, establishCrd, prepareBuiltinCreate, validateBuiltin } from './builtin-rules.ts';
import type { Target } from './decode.ts';
import { BUILTIN_RESOURCES } from './builtin.ts';
import { apiErrors, fail } from './errors.ts';
import { invalid } from './field-errors.ts';
import type { FieldError } from './field-errors.ts';
import { nowTime } from './go-time.ts';
import { deepEqual } from './json.ts';
import { strings, validateMetaCreate, validateMetaUpdate } from './meta.ts';
import { addedObjects } from './field-set.ts';
import { listTypesOf } from './list-types.ts';
import { trackUpdate } from './managed-fields.ts';
import type { ManagedEntry, Writer } from './managed-fields.ts';
import { validateSchema } from './schema-validate.ts';
import { allocateService, keepAllocated } from './service-ips.ts';
import { prepareStatusUpdate, prepareMainUpdate } from './status.ts';
import type { Store } from './store.ts';
import { clone, groupVersion, hasGeneration, isObj, metaOf, objectKey, qualifiedResource, requiresRvOnUpdate, str } from './types.ts';
import type { Obj, ResourceDef } from './types.ts';

export interface WriteContext extends Target {
  readonly store: Store;
  readonly dryRun: boolean;
  /** Who writes, for managedFields (when the store tracks them). */
  readonly writer?: Writer;
}

/** The request's managedFields: computed by an apply, else from what the writer changed. */
function managedFields(ctx: WriteContext, old: Obj | undefined, next: Obj, subresource: 'status' | undefined, preset: readonly ManagedEntry[] | undefined, requested?: unknown): void {
  if (!ctx.store.fieldManagement || !ctx.writer) {
    delete metaOf(next).managedFields;
    if (old && metaOf(old).managedFields !== undefined) metaOf(next).managedFields = clone(metaOf(old).managedFields);
    return;
  }
  const writer = subresource ? { ...ctx.writer, subresource } : ctx.writer;
  const list = preset ? [...preset] : trackUpdate(old ?? zeroObject(ctx.res, next), next, writer, subresource === 'status' || !ctx.version.status, listTypesOf(ctx.res, ctx.version), addedObjects(ctx.res.builtin !== undefined), requested);
  if (list.length > 0) metaOf(next).managedFields = list;
  else delete metaOf(next).managedFields;
}

/**
 * The live object a create is compared with: nothing for a custom resource, the Go zero value for a
 * built-in kind, whose spec and status are structs always written as `{}`, so an empty one sent
 * (kubectl's protobuf Namespace) is no change and nobody owns it.
 */
function zeroObject(res: ResourceDef, next: Obj): Obj | undefined {
  if (!res.builtin) return undefined;
  const zero: Obj = {};
  for (const k of ['spec', 'status']) if (isObj(next[k])) zero[k] = {};
  return zero;
}

export interface WriteResult {
  /** The object in storage form (present() turns it into a response). */
  readonly object: Obj;
  /** Something was written (the RV moved). */
  readonly changed: boolean;
  readonly created?: boolean;
  /** What the strategy warns about (WarningsOnCreate/WarningsOnUpdate), for the Warning header. */
  readonly warnings?: readonly string[];
}

export function storeKey(res: ResourceDef): string {
  return qualifiedResource(res);
}

function storageVersion(res: ResourceDef): string {
  return (res.versions.find((v) => v.storage) ?? res.versions[0])?.name ?? 'v1';
}

const GENERATED = 'bcdfghjklmnpqrstvwxz2456789';

function generateName(base: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += GENERATED[Math.floor(Math.random() * GENERATED.length)];
  return base.slice(0, 58) + suffix;
}

function typeMetaErrors(ctx: Target, obj: Obj): FieldError[] {
  const { res, version } = ctx;
  const errs: FieldError[] = [];
  const gv = groupVersion(res, version.name);
  if (obj.kind !== res.kind) errs.push(invalid('kind', obj.kind ?? '', `must be ${res.kind}`));
  if (obj.apiVersion !== gv) errs.push(invalid('apiVersion', obj.apiVersion ?? '', `must be ${gv}`));
  return errs;
}

/** Validation in the strategy's order: type meta alone first, then metadata, then the schema. */
function validate(ctx: Target, obj: Obj, old: Obj | undefined): FieldError[] {
  const { res, version } = ctx;
  if (!res.builtin) {
    const tm = typeMetaErrors(ctx, obj);
    if (tm.length > 0) return tm;
  }
  const errs = old ? validateMetaUpdate(obj, old) : validateMetaCreate(res, obj);
  if (res.builtin) errs.push(...validateBuiltin(res, obj, old));
  else if (version.schema) errs.push(...validateSchema(obj, version.schema, old ? { value: old } : undefined));
  return errs;
}

export function createObject(ctx: WriteContext, input: Obj, preset?: readonly ManagedEntry[]): WriteResult {
  const { res, store } = ctx;
  const obj = clone(input);
  const meta = metaOf(obj);
  ensureNamespace(ctx, meta);
  admitNamespace(ctx, obj);
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.managedFields;
  delete meta.selfLink;
  if (hasGeneration(res)) {
    meta.generation = 1;
    if (ctx.version.status) delete obj.status;
  } else {
    delete meta.generation;
  }
  resetStatusOnCreate(res.builtin, obj);
  meta.uid = randomUUID();
  meta.creationTimestamp = nowTime();
  if (!str(meta.name) && str(meta.generateName)) meta.name = generateName(str(meta.generateName));
  const name = str(meta.name);
  const errs = validate(ctx, obj, undefined);
  if (errs.length > 0) throw apiErrors.invalidObject(res, name, errs);
  canonicalizeBuiltin(res, obj);
  obj.apiVersion = groupVersion(res, storageVersion(res));
  if (res.builtin === 'customresourcedefinitions') establishCrd(obj);
  managedFields(ctx, undefined, obj, undefined, preset);
  prepareBuiltinCreate(res, obj);
  // The storage allocates after the handler tracked field ownership: nobody owns the cluster IP.
  if (res.builtin === 'services') allocateService(store, obj);
  const key = objectKey(str(meta.namespace), name);
  // etcd3 store.Create refuses a set RV before it looks for the key; a dry run (DryRunnableStorage)
  // only looks for the key, after validation either way.
  if (meta.resourceVersion && !ctx.dryRun) throw apiErrors.plain500('resourceVersion should not be set on objects to be created');
  const existing = store.peek(storeKey(res), key);
  if (existing) throw apiErrors.alreadyExists(res, name, Boolean(metaOf(existing).deletionTimestamp));
  const warnings = finalizerWarnings(res, obj, undefined);
  if (ctx.dryRun) return { object: obj, changed: false, created: true, warnings };
  return { object: store.create(storeKey(res), key, obj), changed: true, created: true, warnings };
}

// The finalizers the API server itself knows; only these may go without a domain unwarned.
const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/**
 * customResourceStrategy.WarningsOnCreate/WarningsOnUpdate (kube-api.md §5): each finalizer the
 * write adds that has no `/` gets a warning (a malformed one is already a 422). Built-in kinds'
 * strategies and the /status strategy warn about nothing.
 */
function finalizerWarnings(res: ResourceDef, obj: Obj, old: Obj | undefined): string[] {
  if (res.builtin) return [];
  const had = new Set(old ? strings(metaOf(old).finalizers) : []);
  const added = [...new Set(strings(metaOf(obj).finalizers))].filter((f) => !had.has(f)).sort();
  return added.filter((f) => !f.includes('/') && !STANDARD_FINALIZERS.has(f))
    .map((f) => `metadata.finalizers: ${JSON.stringify(f)}: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers`);
}

export interface UpdateOptions {
  readonly subresource?: 'status';
  /** Leases (and apply patches) create what is missing. */
  readonly createIfMissing?: boolean;
  /** managedFields an apply computed (else tracked from the change). */
  readonly managedFields?: readonly ManagedEntry[];
}

/** checkName in h/rest.go: the body must name the object in the URL. */
export function checkName(obj: Obj, name: string): void {
  const objName = str(isObj(obj.metadata) ? obj.metadata.name : undefined);
  if (objName !== name) throw apiErrors.badRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
}

const NAMESPACES = BUILTIN_RESOURCES.find((r) => r.builtin === 'namespaces') as ResourceDef;

/** NamespaceLifecycle admission on create: the namespace must exist and not be terminating. */
function admitNamespace(ctx: WriteContext, obj: Obj): void {
  if (!ctx.res.namespaced || !ctx.store.strictNamespaces) return;
  const namespace = ctx.namespace;
  const ns = ctx.store.peek(storeKey(NAMESPACES), namespace);
  if (!ns) throw apiErrors.notFound(NAMESPACES, namespace);
  if (metaOf(ns).deletionTimestamp) {
    const name = str(metaOf(obj).name);
    throw fail(403, 'Forbidden', `${qualifiedResource(ctx.res)} ${JSON.stringify(name)} is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`, {
      name, group: ctx.res.group, kind: ctx.res.plural,
      causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
    });
  }
}

/** rest.EnsureObjectNamespaceMatchesRequestNamespace: fill in, clear, or refuse the namespace. */
function ensureNamespace(ctx: Target, meta: Obj): void {
  const expected = ctx.res.namespaced ? ctx.namespace : '';
  const given = str(meta.namespace);
  if (given === expected) return;
  if (given === '') meta.namespace = expected;
  else if (expected === '') delete meta.namespace;
  else throw apiErrors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
}

export function updateObject(ctx: WriteContext, name: string, input: Obj, opts: UpdateOptions = {}): WriteResult {
  const { res, store } = ctx;
  const obj = clone(input);
  const meta = metaOf(obj);
  ensureNamespace(ctx, meta);
  checkName(obj, name);
  const key = objectKey(res.namespaced ? ctx.namespace : '', name);
  const old = store.peek(storeKey(res), key);
  if (!old) {
    if (opts.createIfMissing || res.builtin === 'leases') return createObject(ctx, withoutRv(obj));
    throw apiErrors.notFound(res, name);
  }
  const oldMeta = metaOf(old);
  if (str(meta.uid) && meta.uid !== oldMeta.uid) {
    const storageKey = `/${res.group ? `${res.group}/` : ''}${res.plural}/${key}`;
    throw apiErrors.conflict(res.group, res.plural, name,
      `StorageError: invalid object, Code: 4, Key: ${storageKey}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${str(meta.uid)}, UID in object meta: ${str(oldMeta.uid)}`);
  }
  if (!str(meta.resourceVersion)) {
    if (requiresRvOnUpdate(res)) {
      throw apiErrors.invalid(res.group, res.plural, name, [invalid('metadata.resourceVersion', 0, 'must be specified for an update')]);
    }
    meta.resourceVersion = oldMeta.resourceVersion;
  } else if (meta.resourceVersion !== oldMeta.resourceVersion) {
    throw apiErrors.staleResourceVersion(res, name);
  }
  const next = opts.subresource === 'status' ? prepareStatusUpdate(res, obj, old) : prepareMainUpdate(res, ctx.version, obj, old);
  if (res.builtin === 'services') keepAllocated(next, old);
  const errs = validate(ctx, next, old);
  if (errs.length > 0) throw apiErrors.invalidObject(res, name, errs);
  canonicalizeBuiltin(res, next);
  next.apiVersion = groupVersion(res, storageVersion(res));
  if (res.builtin === 'customresourcedefinitions' && !opts.subresource) establishCrd(next, old);
  managedFields(ctx, old, next, opts.subresource, opts.managedFields, subresourceless(opts) ? metaOf(obj).managedFields : undefined);
  if (res.builtin === 'services') allocateService(store, next);
  keepManagedFieldsTimes(next, old);
  if (shouldDeleteDuringUpdate(next, old)) {
    if (!ctx.dryRun) store.remove(storeKey(res), key);
    return { object: next, changed: !ctx.dryRun };
  }
  const warnings = opts.subresource === 'status' ? [] : finalizerWarnings(res, next, old);
  if (deepEqual(next, old) || ctx.dryRun) return { object: ctx.dryRun ? next : clone(old), changed: false, warnings };
  return { object: store.update(storeKey(res), key, next), changed: true, warnings };
}

/**
 * fieldmanager's IgnoreManagedFieldsTimestampsTransformer: when the object (in internal form, a
 * Secret's stringData already folded into data) equals the stored one apart from managedFields, and
 * those differ only in their times, the stored times are kept, so the write is a no-op.
 */
function keepManagedFieldsTimes(next: Obj, old: Obj): void {
  const { managedFields: nextFields, ...nextMeta } = metaOf(next);
  const { managedFields: oldFields, ...oldMeta } = metaOf(old);
  if (!Array.isArray(nextFields) || !Array.isArray(oldFields) || nextFields.length !== oldFields.length) return;
  if (!deepEqual({ ...next, metadata: nextMeta }, { ...old, metadata: oldMeta })) return;
  const untimed = (list: unknown[]): unknown[] => list.map((e) => (isObj(e) ? { ...e, time: undefined } : e));
  if (!deepEqual(untimed(nextFields), untimed(oldFields))) return;
  metaOf(next).managedFields = clone(oldFields);
}

// A /status write cannot set managedFields beyond status (the live ones are kept).
function subresourceless(opts: UpdateOptions): boolean {
  return opts.subresource === undefined;
}

function withoutRv(obj: Obj): Obj {
  const out = clone(obj);
  delete metaOf(out).resourceVersion;
  return out;
}

// The last finalizer of an object being deleted (with no grace period left) deletes it.
function shouldDeleteDuringUpdate(obj: Obj, old: Obj): boolean {
  const oldMeta = metaOf(old);
  if (strings(metaOf(obj).finalizers).length > 0 || !oldMeta.deletionTimestamp) return false;
  if (isObj(obj.spec) && strings(obj.spec.finalizers).length > 0 && isObj(obj.status) && obj.status.phase === 'Terminating') return false;
  const grace = oldMeta.deletionGracePeriodSeconds;
  return grace === undefined || grace === null || grace === 0;
}

export interface DeleteOptions {
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly orphanDependents?: boolean;
}

export interface DeleteResult {
  readonly object: Obj;
  /** Removed from the store (else it was marked for deletion and waits for finalizers). */
  readonly removed: boolean;
  readonly changed: boolean;
}

// A namespace with spec.finalizers is only marked: Terminating until the namespace controller
// (namespaces.ts) has emptied it and removed the `kubernetes` finalizer.
function terminateNamespace(ctx: WriteContext, key: string, old: Obj): DeleteResult {
  if (metaOf(old).deletionTimestamp) return { object: clone(old), removed: false, changed: false };
  const next = clone(old);
  metaOf(next).deletionTimestamp = nowTime();
  metaOf(next).deletionGracePeriodSeconds = 0;
  next.status = { ...(isObj(next.status) ? next.status : {}), phase: 'Terminating' };
  if (ctx.dryRun) return { object: next, removed: false, changed: false };
  return { object: ctx.store.update(storeKey(ctx.res), key, next), removed: false, changed: true };
}

export function deleteObject(ctx: WriteContext, name: string, opts: DeleteOptions = {}): DeleteResult {
  const { res, store } = ctx;
  const key = objectKey(res.namespaced ? ctx.namespace : '', name);
  const old = store.peek(storeKey(res), key);
  if (!old) throw apiErrors.notFound(res, name);
  const oldMeta = metaOf(old);
  // BeforeDelete reports preconditions against the Kind, not the plural.
  if (opts.uid !== undefined && opts.uid !== oldMeta.uid) {
    throw apiErrors.conflict(res.group, res.kind, name,
      `the UID in the precondition (${opts.uid}) does not match the UID in record (${str(oldMeta.uid)}). The object might have been deleted and then recreated`);
  }
  if (opts.resourceVersion !== undefined && opts.resourceVersion !== oldMeta.resourceVersion) {
    throw apiErrors.conflict(res.group, res.kind, name,
      `the ResourceVersion in the precondition (${opts.resourceVersion}) does not match the ResourceVersion in record (${str(oldMeta.resourceVersion)}). The object might have been modified`);
  }
  if (res.builtin === 'namespaces' && isObj(old.spec) && strings(old.spec.finalizers).length > 0) return terminateNamespace(ctx, key, old);
  if (strings(oldMeta.finalizers).length === 0) {
    if (ctx.dryRun) return { object: clone(old), removed: true, changed: false };
    return { object: store.remove(storeKey(res), key), removed: true, changed: true };
  }
  if (oldMeta.deletionTimestamp && oldMeta.deletionGracePeriodSeconds === 0) return { object: clone(old), removed: false, changed: false };
  const next = clone(old);
  const meta = metaOf(next);
  if (!meta.deletionTimestamp || Date.parse(str(meta.deletionTimestamp)) > Date.now()) meta.deletionTimestamp = nowTime();
  if (!oldMeta.deletionTimestamp && typeof meta.generation === 'number' && meta.generation > 0) meta.generation += 1;
  meta.deletionGracePeriodSeconds = 0;
  if (ctx.dryRun) return { object: next, removed: false, changed: false };
  return { object: store.update(storeKey(res), key, next), removed: false, changed: true };
}
