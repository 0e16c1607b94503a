// What the Go types and their registry strategies do to Secrets, Events, Namespaces and Leases:
// decoding (base64, times, stringData), defaults, and validation with the real messages
// (`pkg/apis/core/validation`, `pkg/apis/coordination/validation`).
import { defaultDeployment, defaultService, defaultStatefulSet, defaultWebhooks } from './builtin-defaults.ts';
import { CrdLoadError, resourceFromCrd } from './crd.ts';
import { apiErrors } from './errors.ts';
import { fieldError, forbidden, invalid, required } from './field-errors.ts';
import type { FieldError } from './field-errors.ts';
import { formatMicroTime, formatTime, microTimeError, timeError } from './go-time.ts';
import { deepEqual } from './json.ts';
import { isDns1123Subdomain, isQualifiedName, maxLenError, regexError } from './names.ts';
import { validateSchema } from './schema-validate.ts';
import { isObj, metaOf, str } from './types.ts';
import type { Obj, ResourceDef } from './types.ts';

const GO_TYPES: Record<string, string> = { string: 'string', integer: 'int32', boolean: 'bool', object: 'map[string]string', array: '[]string' };

/** Decoding as the Go type would: wrong JSON types, base64 and times are 400s. */
export function decodeBuiltin(res: ResourceDef, version: string, obj: Obj): void {
  // encoding/json leaves a field at its zero value for a null, whatever its type.
  dropNulls(obj);
  const schema = res.versions[0]?.schema;
  const typeErr = schema ? validateSchema(obj, schema).find((e) => e.type === 'TypeInvalid') : undefined;
  if (typeErr) {
    const want = typeErr.detail.match(/must be of type (\w+)/)?.[1] ?? 'string';
    throw apiErrors.undecodable(res, version, `json: cannot unmarshal ${String(typeErr.value).replace('integer', 'number')} into Go struct field ${res.kind}.${typeErr.field} of type ${GO_TYPES[want] ?? want}`);
  }
  const bad = (why: string): never => {
    throw apiErrors.undecodable(res, version, why);
  };
  switch (res.builtin) {
    case 'secrets': {
      const data = isObj(obj.data) ? (obj.data as Record<string, string>) : {};
      for (const v of Object.values(data)) {
        const at = base64Error(v);
        if (at !== undefined) bad(`illegal base64 data at input byte ${at}`);
      }
      // v1 → internal conversion: stringData wins over data and is never stored.
      if (isObj(obj.stringData)) {
        for (const [k, v] of Object.entries(obj.stringData)) data[k] = Buffer.from(String(v)).toString('base64');
        obj.data = data;
      }
      delete obj.stringData;
      break;
    }
    case 'events': {
      for (const k of ['firstTimestamp', 'lastTimestamp'] as const) {
        if (typeof obj[k] === 'string') obj[k] = time(obj[k] as string, bad);
      }
      if (typeof obj.eventTime === 'string') obj.eventTime = microTime(obj.eventTime, bad);
      if (isObj(obj.series) && typeof obj.series.lastObservedTime === 'string') obj.series.lastObservedTime = microTime(obj.series.lastObservedTime, bad);
      break;
    }
    case 'leases': {
      const spec = isObj(obj.spec) ? obj.spec : (obj.spec = {});
      for (const k of ['acquireTime', 'renewTime'] as const) {
        if (typeof spec[k] === 'string') spec[k] = microTime(spec[k] as string, bad);
      }
      // Dropped unless the CoordinatedLeaderElection gate is on (it is off by default).
      delete spec.strategy;
      delete spec.preferredHolder;
      break;
    }
    default:
  }
}

function dropNulls(x: unknown): void {
  if (Array.isArray(x)) x.forEach(dropNulls);
  else if (isObj(x)) {
    for (const [k, v] of Object.entries(x)) {
      if (v === null) delete x[k];
      else dropNulls(v);
    }
  }
}

function time(value: string, bad: (why: string) => never): string {
  const err = timeError(value);
  return err ? bad(err) : formatTime(value);
}

function microTime(value: string, bad: (why: string) => never): string {
  const err = microTimeError(value);
  return err ? bad(err) : formatMicroTime(value);
}

// Go's base64.StdEncoding: padded, and the byte offset of the first bad input.
function base64Error(value: string): number | undefined {
  const m = /[^A-Za-z0-9+/=]/.exec(value);
  if (m) return m.index;
  const pad = value.indexOf('=');
  if (pad >= 0 && (!/^=*$/.test(value.slice(pad)) || value.length % 4 !== 0 || value.length - pad > 2)) return pad;
  if (value.length % 4 !== 0) return value.length - (value.length % 4);
  return undefined;
}

/**
 * What a strategy's PrepareForCreate adds after the handler tracked field ownership (so nobody owns
 * it): a Namespace always gets the `kubernetes` finalizer, after any it was given.
 */
export function prepareBuiltinCreate(res: ResourceDef, obj: Obj): void {
  if (res.builtin !== 'namespaces') return;
  const spec = isObj(obj.spec) ? obj.spec : (obj.spec = {});
  const finalizers = Array.isArray(spec.finalizers) ? spec.finalizers : [];
  spec.finalizers = finalizers.includes('kubernetes') ? finalizers : [...finalizers, 'kubernetes'];
}

/** Defaults of the Go types and strategies, plus the fields Go always writes (null, "", {}). */
export function defaultBuiltin(res: ResourceDef, obj: Obj): void {
  switch (res.builtin) {
    case 'secrets':
      if (!obj.type) obj.type = 'Opaque';
      break;
    case 'events':
      if (!isObj(obj.involvedObject)) obj.involvedObject = {};
      if (!isObj(obj.source)) obj.source = {};
      for (const k of ['firstTimestamp', 'lastTimestamp', 'eventTime']) if (obj[k] === undefined) obj[k] = null;
      for (const k of ['reportingComponent', 'reportingInstance']) if (obj[k] === undefined) obj[k] = '';
      break;
    case 'namespaces': {
      // spec.finalizers is not a default: PrepareForCreate adds `kubernetes` (prepareBuiltinCreate).
      const status = isObj(obj.status) ? obj.status : (obj.status = {});
      if (!status.phase) status.phase = 'Active';
      break;
    }
    case 'leases':
      if (!isObj(obj.spec)) obj.spec = {};
      break;
    case 'services':
      defaultService(obj);
      break;
    case 'deployments':
      defaultDeployment(obj);
      break;
    case 'statefulsets':
      defaultStatefulSet(obj);
      break;
    case 'validatingwebhookconfigurations':
    case 'mutatingwebhookconfigurations':
      defaultWebhooks(obj, res.builtin === 'mutatingwebhookconfigurations');
      break;
    default:
  }
}

/**
 * The strategies' Canonicalize, after validation on create and update: a Namespace always carries
 * `kubernetes.io/metadata.name` with its name (pkg/registry/core/namespace), which no write can
 * change or remove; namespaceSelectors rely on it.
 */
export function canonicalizeBuiltin(res: ResourceDef, obj: Obj): void {
  if (res.builtin !== 'namespaces') return;
  const meta = metaOf(obj);
  meta.labels = { ...(isObj(meta.labels) ? meta.labels : {}), 'kubernetes.io/metadata.name': str(meta.name) };
}

/**
 * What the apiextensions controllers write at once: names accepted, established, stored versions.
 * On an update (`old`), the strategy keeps the stored status and the controllers change only what
 * differs: a condition keeps its lastTransitionTime while its status stays the same
 * (apihelpers.SetCRDCondition), and storedVersions only gain the new storage version.
 */
export function establishCrd(obj: Obj, old?: Obj): void {
  const spec = isObj(obj.spec) ? obj.spec : {};
  const names = isObj(spec.names) ? spec.names : {};
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObj) : [];
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const oldStatus = old && isObj(old.status) ? old.status : {};
  const oldConditions = Array.isArray(oldStatus.conditions) ? oldStatus.conditions.filter(isObj) : [];
  const condition = (type: string, reason: string, message: string): Obj => {
    const before = oldConditions.find((c) => c.type === type);
    const since = before && before.status === 'True' && typeof before.lastTransitionTime === 'string' ? before.lastTransitionTime : now;
    return { type, status: 'True', lastTransitionTime: since, reason, message };
  };
  const acceptedNames: Obj = { plural: names.plural, singular: names.singular ?? str(names.kind).toLowerCase(), kind: names.kind, listKind: names.listKind ?? `${str(names.kind)}List` };
  if (Array.isArray(names.shortNames)) acceptedNames.shortNames = names.shortNames;
  if (Array.isArray(names.categories)) acceptedNames.categories = names.categories;
  const stored = Array.isArray(oldStatus.storedVersions) ? oldStatus.storedVersions.map(str) : [];
  for (const v of versions.filter((x) => x.storage === true).map((x) => str(x.name))) if (!stored.includes(v)) stored.push(v);
  obj.status = {
    conditions: [condition('NamesAccepted', 'NoConflicts', 'no conflicts found'), condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted')],
    acceptedNames,
    storedVersions: stored,
  };
}

export function validateBuiltin(res: ResourceDef, obj: Obj, old: Obj | undefined): FieldError[] {
  switch (res.builtin) {
    case 'secrets': return validateSecret(obj, old);
    case 'events': return validateEvent(obj);
    case 'leases': return validateLease(obj);
    case 'customresourcedefinitions': return validateCrd(obj);
    default: return [];
  }
}

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

function configKeyErrors(key: string): string[] {
  const errs: string[] = [];
  if (key.length > 253) errs.push(maxLenError(253));
  if (!CONFIG_KEY.test(key)) errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", '[-._a-zA-Z0-9]+', 'key.name', 'KEY_NAME', 'key-name'));
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

function validateSecret(obj: Obj, old: Obj | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const data = isObj(obj.data) ? (obj.data as Record<string, string>) : {};
  let size = 0;
  for (const [k, v] of Object.entries(data)) {
    for (const msg of configKeyErrors(k)) errs.push(invalid(`data[${k}]`, k, msg));
    size += Buffer.from(v, 'base64').length;
  }
  if (size > 1_048_576) errs.push(fieldError('TooLong', 'data', '', 'may not be more than 1048576 bytes'));
  const type = str(obj.type);
  if (type === 'kubernetes.io/tls') {
    if (!('tls.key' in data)) errs.push(required('data[tls.key]'));
    if (!('tls.crt' in data)) errs.push(required('data[tls.crt]'));
  } else if (type === 'kubernetes.io/ssh-auth' && !('ssh-privatekey' in data)) {
    errs.push(required('data[ssh-privatekey]'));
  } else if (type === 'kubernetes.io/basic-auth' && !('username' in data) && !('password' in data)) {
    errs.push(required('data[username]'), required('data[password]'));
  }
  if (old) {
    if (str(old.type) !== type) errs.push(invalid('type', type, 'field is immutable'));
    if (old.immutable === true) {
      if (obj.immutable !== true) errs.push(forbidden('immutable', 'field is immutable when `immutable` is set'));
      if (!deepEqual(old.data ?? {}, obj.data ?? {})) errs.push(forbidden('data', 'field is immutable when `immutable` is set'));
    }
  }
  return errs;
}

// legacyValidateEvent: a v1 request gets nothing more.
function validateEvent(obj: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = str(metaOf(obj).namespace);
  const involved = isObj(obj.involvedObject) ? obj.involvedObject : {};
  const involvedNs = str(involved.namespace);
  if (!obj.eventTime) {
    if (!involvedNs ? namespace !== '' && namespace !== 'default' : namespace !== involvedNs) {
      errs.push(invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
    }
  } else {
    if (!involvedNs && namespace !== 'default' && namespace !== 'kube-system') {
      errs.push(invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
    }
    const controller = str(obj.reportingComponent);
    if (!controller) errs.push(required('reportingComponent'));
    for (const msg of isQualifiedName(controller)) errs.push(invalid('reportingComponent', controller, msg));
    const limit = (field: string, max: number, needed: boolean): void => {
      const v = str(obj[field]);
      if (needed && !v) errs.push(required(field));
      if (v.length > max) errs.push(invalid(field, '', `can have at most ${max} characters`));
    };
    limit('reportingInstance', 128, true);
    limit('action', 128, true);
    limit('reason', 128, true);
    limit('message', 1024, false);
  }
  for (const msg of isDns1123Subdomain(namespace)) errs.push(invalid('namespace', namespace, msg));
  return errs;
}

// The CRD checks the loader makes (structural schema, names), reported as one field error.
function validateCrd(obj: Obj): FieldError[] {
  const spec = isObj(obj.spec) ? obj.spec : {};
  const names = isObj(spec.names) ? spec.names : {};
  const name = str(metaOf(obj).name);
  if (name !== `${str(names.plural)}.${str(spec.group)}`) return [invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group')];
  try {
    resourceFromCrd(obj, 'spec');
  } catch (e) {
    if (!(e instanceof CrdLoadError)) throw e;
    return [invalid('spec', 'object', e.message.replace(/^spec: /, ''))];
  }
  return [];
}

function validateLease(obj: Obj): FieldError[] {
  const spec = isObj(obj.spec) ? obj.spec : {};
  const errs: FieldError[] = [];
  if (typeof spec.leaseDurationSeconds === 'number' && spec.leaseDurationSeconds <= 0) {
    errs.push(invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (typeof spec.leaseTransitions === 'number' && spec.leaseTransitions < 0) {
    errs.push(invalid('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  return errs;
}
