import { z } from 'zod';
import { annotationPath, fieldError, type FieldError } from '../field-error.ts';
import { fieldAtLiteralPath, goKind, goTypeError, isObject, jsonKind, resolveGoDuplicates, schemaAt, type Json, type Shadowed } from './go-json.ts';
import { decodeHardwareDetails, nonIntegerLiterals } from './hardware-details.ts';
import { BareMetalHostStatus, HardwareDetails, initialStatus } from './schema.ts';

// The annotations of a BareMetalHost that change what the controller does (reference/bmo.md §1.7),
// and parsers that turn their values into typed requests. Values are decoded as BMO's Go code
// decodes them (encoding/json), so a manifest means the same thing to both.

export const PAUSED_ANNOTATION = 'baremetalhost.metal3.io/paused';
/** The paused value Cluster API Provider Metal3 writes while it moves hosts. */
export const PAUSED_BY_CAPM3 = 'metal3.io/capm3';
export const DETACHED_ANNOTATION = 'baremetalhost.metal3.io/detached';
export const STATUS_ANNOTATION = 'baremetalhost.metal3.io/status';
/** `reboot.metal3.io` alone, or with a `/<suffix>` per client (phased reboot). */
export const REBOOT_ANNOTATION = 'reboot.metal3.io';
export const INSPECT_ANNOTATION = 'inspect.metal3.io';
export const INSPECT_DISABLED = 'disabled';
export const HARDWARE_DETAILS_ANNOTATION = 'inspect.metal3.io/hardwaredetails';
/**
 * metalfleet's own (BMO has no such annotation; it reprovisions by removing and restoring the
 * image): on a provisioned host, deprovision and deploy the same image again. The value is the
 * request id (may be empty); the machine removes the annotation once the reprovision starts.
 */
export const REPROVISION_ANNOTATION = 'metalfleet.io/reprovision';
/**
 * metalfleet's own (`metalfleet host service`): on a provisioned host, reboot now so that the
 * firmware changes its HostUpdatePolicy allows on reboot are serviced (BMO services only while a
 * provisioned host powers on). The value is the request id (may be empty); the machine removes
 * the annotation once servicing starts, or refuses it with an event when there is nothing to do.
 */
export const SERVICE_ANNOTATION = 'metalfleet.io/service';

export type AnnotationResult<T> = { ok: true; value: T } | { ok: false; error: FieldError };

export type Annotations = Readonly<Record<string, string>> | undefined;


/**
 * The most an annotation's JSON may nest, and its most bytes. A BMO status nests eight deep; the
 * API server takes at most 256 KiB of annotations per object. Deeper or larger input is refused
 * before it is parsed: 5,000 nested arrays overflowed the stack of every recursive reader of it.
 */
export const MAX_ANNOTATION_JSON_DEPTH = 64;
export const MAX_ANNOTATION_JSON_BYTES = 256 * 1024;

/** How deep the JSON text nests (brackets outside strings), stopping once past `limit`. */
function nesting(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

function parseJson(value: string): { ok: true; json: Json } | { ok: false; reason: string } {
  if (value.length > MAX_ANNOTATION_JSON_BYTES) return { ok: false, reason: `the value is ${value.length} characters; at most ${MAX_ANNOTATION_JSON_BYTES} are accepted` };
  if (nesting(value, MAX_ANNOTATION_JSON_DEPTH) > MAX_ANNOTATION_JSON_DEPTH) {
    return { ok: false, reason: `the JSON nests deeper than ${MAX_ANNOTATION_JSON_DEPTH} levels` };
  }
  try {
    return { ok: true, json: JSON.parse(value) as Json };
  } catch (err) {
    return { ok: false, reason: err instanceof SyntaxError ? `invalid JSON: ${err.message}` : 'invalid JSON' };
  }
}

// encoding/json matches struct fields case-insensitively, preferring an exact match.
function goField(obj: { [key: string]: Json }, name: string): Json | undefined {
  if (Object.hasOwn(obj, name)) return obj[name];
  const key = Object.keys(obj).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : obj[key];
}

type Decoded = { fields: Record<string, string | boolean | undefined>; error?: string };

// Every occurrence of every top-level key, in document order: JSON.parse keeps only the last of a
// key given twice in the same spelling, where Go decodes each one.
function occurrences(value: string): Array<[string, Json]> {
  const { value: resolved, shadowed } = resolveGoDuplicates(value, () => false);
  const all: Array<[string, Json]> = [];
  // The resolver replaces an earlier occurrence by a later one (recording the earlier), keeps the
  // earlier one for a later null (the fields here are strings and bools: null leaves them), and
  // merges two objects into one; in each case the surviving value comes last.
  for (const s of shadowed) if (s.path.length === 1) all.push([s.path[0] as string, s.value]);
  if (isObject(resolved)) for (const [key, v] of Object.entries(resolved)) all.push([key, v]);
  return all;
}

// Go's json.Unmarshal into a struct of string and bool fields: a syntax error sets nothing; a
// value of the wrong type is skipped and reported while the other fields are still set.
function decodeGoStruct(value: string, fields: Record<string, 'string' | 'boolean'>, goType: string): Decoded {
  const parsed = parseJson(value);
  if (!parsed.ok) return { fields: {}, error: parsed.reason };
  const json = parsed.json;
  if (json === null) return { fields: {} };
  if (!isObject(json)) return { fields: {}, error: `cannot unmarshal ${jsonKind(json)} into ${goType}` };
  const out: Record<string, string | boolean | undefined> = {};
  let error: string | undefined;
  const names = Object.keys(fields);
  // Key by key, in order, as Go decodes: each sets the field it matches (exactly, else ignoring
  // case), so of two keys for one field the later counts; a null, or a value of the wrong type
  // (an error all the same), leaves the field as it was.
  for (const [key, v] of occurrences(value)) {
    const name = Object.hasOwn(fields, key) ? key : names.find((f) => f.toLowerCase() === key.toLowerCase());
    if (name === undefined || v === null) continue;
    const type = fields[name];
    if (typeof v === type) out[name] = v as string | boolean;
    else error ??= `"${name}" must be a ${String(type)}, not ${jsonKind(v)}`;
  }
  return error === undefined ? { fields: out } : { fields: out, error };
}

// --- reboot.metal3.io ---------------------------------------------------------------------------

export type RebootMode = 'soft' | 'hard';
export type RebootRequest = {
  mode: RebootMode;
  force: boolean;
  /** The value was not valid JSON of the expected shape; BMO then reboots soft and emits an event. */
  malformed: boolean;
};
export type RebootAnnotation = RebootRequest & { key: string; suffix: string | null };

const REBOOT_FIELDS = { mode: 'string', force: 'boolean' } as const;

export function isRebootAnnotation(key: string): boolean {
  return key === REBOOT_ANNOTATION || key.startsWith(`${REBOOT_ANNOTATION}/`);
}

/** `""` is a soft reboot; `{"mode":"hard"|"soft","force":bool}`; anything unreadable is soft, flagged. */
export function parseRebootAnnotation(value: string): RebootRequest {
  if (value === '') return { mode: 'soft', force: false, malformed: false };
  const decoded = decodeGoStruct(value, REBOOT_FIELDS, 'RebootAnnotationArguments');
  return {
    // Any mode other than "hard" (including "" and unknown words) reboots soft.
    mode: decoded.fields.mode === 'hard' ? 'hard' : 'soft',
    force: decoded.fields.force === true,
    malformed: decoded.error !== undefined,
  };
}

/** Every reboot annotation of a host, base first then by suffix. */
export function rebootAnnotations(annotations: Annotations): RebootAnnotation[] {
  return Object.keys(annotations ?? {})
    .filter(isRebootAnnotation)
    .sort()
    .map((key) => ({
      key,
      suffix: key === REBOOT_ANNOTATION ? null : key.slice(REBOOT_ANNOTATION.length + 1),
      ...parseRebootAnnotation(annotations?.[key] ?? ''),
    }));
}

/**
 * BMO's hasRebootAnnotation: whether any reboot annotation asks for a reboot (with `expectForce`,
 * only those with `force: true` count), and the mode — hard if any of them asks for hard.
 */
export function requestedReboot(annotations: Annotations, opts: { expectForce: boolean }): { reboot: boolean; mode: RebootMode } {
  let reboot = false;
  let mode: RebootMode = 'soft';
  for (const a of rebootAnnotations(annotations)) {
    if (opts.expectForce && !a.force) continue;
    reboot = true;
    if (a.mode === 'hard') mode = 'hard';
  }
  return { reboot, mode };
}

/** The webhook's check of one reboot annotation: valid JSON, mode `hard`, `soft` or `""`. */
export function checkRebootAnnotation(key: string, value: string): FieldError | null {
  if (value === '') return null;
  const decoded = decodeGoStruct(value, REBOOT_FIELDS, 'RebootAnnotationArguments');
  if (decoded.error !== undefined) {
    return fieldError(annotationPath(key), `failed to unmarshal the data from the ${REBOOT_ANNOTATION} annotation: ${decoded.error}`);
  }
  const mode = decoded.fields.mode ?? '';
  if (mode !== 'hard' && mode !== 'soft' && mode !== '') {
    return fieldError(annotationPath(key), `invalid mode in the ${REBOOT_ANNOTATION} annotation, allowed are "hard", "soft" or ""`, 'NotSupported');
  }
  return null;
}

// --- baremetalhost.metal3.io/detached -----------------------------------------------------------

export type DetachedRequest = {
  /** `delay` keeps the host (and its finalizer) on delete until the annotation is removed. */
  deleteAction: 'delay' | 'delete';
  force: boolean;
};

/** `""` or `{"deleteAction":"delay"|"delete","force":bool}`; an absent deleteAction means delete. */
export function parseDetachedAnnotation(value: string): AnnotationResult<DetachedRequest> {
  const path = annotationPath(DETACHED_ANNOTATION);
  if (value === '') return { ok: true, value: { deleteAction: 'delete', force: false } };
  const decoded = decodeGoStruct(value, { deleteAction: 'string', force: 'boolean' }, 'DetachedAnnotationArguments');
  if (decoded.error !== undefined) {
    return { ok: false, error: fieldError(path, `unable to parse the content of the detached annotation: ${decoded.error}`) };
  }
  const action = decoded.fields.deleteAction ?? '';
  if (action !== '' && action !== 'delay' && action !== 'delete') {
    return {
      ok: false,
      error: fieldError(path, `invalid deleteAction ${JSON.stringify(action)} in the ${DETACHED_ANNOTATION} annotation, allowed are "delay" or "delete"`, 'NotSupported'),
    };
  }
  return { ok: true, value: { deleteAction: action === 'delay' ? 'delay' : 'delete', force: decoded.fields.force === true } };
}

/**
 * The annotation as BMO's controller reads it, past the webhook: a value Go decodes keeps its
 * force, and a deleteAction other than "delay" (one the webhook would refuse) deletes. Only a value
 * that does not decode falls back to the defaults, and says so (`malformed`).
 */
export function readDetachedAnnotation(value: string): DetachedRequest & { readonly malformed: boolean } {
  const parsed = parseDetachedAnnotation(value);
  if (parsed.ok) return { ...parsed.value, malformed: false };
  const decoded = decodeGoStruct(value, { deleteAction: 'string', force: 'boolean' }, 'DetachedAnnotationArguments');
  if (decoded.error !== undefined) return { deleteAction: 'delete', force: false, malformed: true };
  return { deleteAction: decoded.fields.deleteAction === 'delay' ? 'delay' : 'delete', force: decoded.fields.force === true, malformed: false };
}

// --- baremetalhost.metal3.io/status -------------------------------------------------------------

// What BMO itself never writes into the annotation: servicing is live state, detach/servicing
// errors are cleared by their own handlers.
const STATUS_ANNOTATION_OP_STATUS = ['', 'OK', 'discovered', 'error', 'delayed', 'detached'];
const STATUS_ANNOTATION_ERROR_TYPES = [
  '', 'provisioned registration error', 'registration error', 'inspection error', 'preparation error',
  'provisioning error', 'power management error',
];

// Go decodes null as "leave the zero value" and the CRD marks several fields nullable.
function dropNulls(value: Json): Json {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (!isObject(value)) return value;
  const out: { [key: string]: Json } = {};
  // defineProperty, not assignment: `out.__proto__ = …` would swallow the key (Go refuses it as unknown).
  for (const [k, v] of Object.entries(value)) {
    if (v !== null) Object.defineProperty(out, k, { value: dropNulls(v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

// encoding/json matches a key to a struct field exactly, else without regard to case, and a later
// key overwrites an earlier one; DisallowUnknownFields refuses only a key no field matches. So
// `{"OperationalStatus":"OK"}` is a status BMO admits and restores: each key is renamed to the
// field it matches, at every depth, before the checks. Keys no field matches stay for
// unknownField to name. (hardware is renamed again, by BMO's own struct, in decodeHardwareDetails.)
function schemaFields(schema: z.ZodType): z.ZodType {
  let s: z.ZodType = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType;
  return s;
}

function foldKeys(value: Json, schema: z.ZodType): Json {
  const s = schemaFields(schema);
  if (Array.isArray(value)) return s instanceof z.ZodArray ? value.map((item) => foldKeys(item, s.element as z.ZodType)) : value;
  if (!isObject(value) || !(s instanceof z.ZodObject)) return value;
  const shape = s.shape as Record<string, z.ZodType>;
  const names = Object.keys(shape);
  const out: { [key: string]: Json } = {};
  for (const [key, item] of Object.entries(value)) {
    const field = Object.hasOwn(shape, key) ? key : names.find((f) => f.toLowerCase() === key.toLowerCase());
    const at = field ?? key;
    // defineProperty, not assignment: a `__proto__` key stays a plain (unknown) key.
    Object.defineProperty(out, at, { value: field === undefined ? item : foldKeys(item, shape[field] as z.ZodType), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

// Fields missing from a JSON status get Go's zero values, as json.Decoder leaves them.
function withZeroValues(status: { [key: string]: Json }): { [key: string]: Json } {
  const zero = initialStatus() as unknown as { [key: string]: Json };
  const provisioning = isObject(status.provisioning ?? null) ? status.provisioning as { [key: string]: Json } : undefined;
  return {
    ...zero,
    ...status,
    ...(provisioning ? { provisioning: { ...(zero.provisioning as { [key: string]: Json }), ...provisioning } } : {}),
  };
}

// The first key of `input` the schema does not know (zod drops unknown keys of strict objects):
// json.Decoder.DisallowUnknownFields, as BMO decodes this annotation.
function unknownField(input: unknown, output: unknown, path: string): string | null {
  if (Array.isArray(input) && Array.isArray(output)) {
    for (let i = 0; i < input.length; i++) {
      const found = unknownField(input[i], output[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (input === null || typeof input !== 'object' || output === null || typeof output !== 'object') return null;
  for (const [k, v] of Object.entries(input)) {
    const child = path === '' ? k : `${path}.${k}`;
    if (!Object.hasOwn(output, k)) return child;
    const found = unknownField(v, (output as Record<string, unknown>)[k], child);
    if (found) return found;
  }
  return null;
}

function issuePath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

// Go's time.Parse(time.RFC3339, s), as metav1.Time decodes every time of a status: upper-case T
// and Z, an optional fraction of a second, an offset of ±hh:mm, and dates and clock times that
// exist (no 30 February, no second 60).
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,]\d+)?(?:Z|[+-](\d{2}):(\d{2}))$/;

function isGoRfc3339(text: string): boolean {
  const m = RFC3339.exec(text);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const daysInMonth = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return false;
  return m[7] === undefined || (Number(m[7]) <= 23 && Number(m[8]) <= 59);
}

// The metav1.Time fields of BareMetalHostStatus, as paths into the decoded JSON.
function statusTimes(status: { [key: string]: Json }): Array<[string, Json]> {
  const times: Array<[string, Json]> = [];
  if (status.lastUpdated !== undefined) times.push(['lastUpdated', status.lastUpdated]);
  const history = status.operationHistory;
  if (history !== undefined && isObject(history)) {
    for (const op of ['register', 'inspect', 'provision', 'deprovision']) {
      const entry = goField(history, op);
      if (entry === undefined || !isObject(entry)) continue;
      for (const end of ['start', 'end']) {
        const value = goField(entry, end);
        if (value !== undefined) times.push([`operationHistory.${op}.${end}`, value]);
      }
    }
  }
  const conditions = status.conditions;
  if (Array.isArray(conditions)) {
    conditions.forEach((c, i) => {
      const value = isObject(c) ? goField(c, 'lastTransitionTime') : undefined;
      if (value !== undefined) times.push([`conditions[${i}].lastTransitionTime`, value]);
    });
  }
  return times;
}

// The fields of BMO's BareMetalHostStatus that a JSON null sets to nil when a key is given twice
// (pointers, slices, maps and metav1.Time, whose UnmarshalJSON zeroes it), by path: keys lower-cased,
// `[]` a list element, `*` any key. Any other field (a struct, string, number or bool) keeps what
// an earlier occurrence set. Go types from apis/metal3.io/v1alpha1/baremetalhost_types.go and
// hardwaredata_types.go.
const IMAGE_POINTERS = ['format', 'ociauthsecretname'];
const HINT_POINTERS = ['rotational'];
const STATUS_NULL_RESETS = new Set([
  'lastupdated', 'hardware', 'lastattemptedimage', 'conditions', 'conditions.[].lasttransitiontime',
  'goodcredentials.credentials', 'triedcredentials.credentials',
  'operationhistory.*.start', 'operationhistory.*.end',
  ...IMAGE_POINTERS.flatMap((f) => [`provisioning.image.${f}`, `lastattemptedimage.${f}`]),
  'provisioning.rootdevicehints', ...HINT_POINTERS.map((f) => `provisioning.rootdevicehints.${f}`),
  'provisioning.raid', 'provisioning.raid.hardwareraidvolumes', 'provisioning.raid.softwareraidvolumes',
  ...['sizegibibytes', 'rotational', 'numberofphysicaldisks', 'physicaldisks'].map((f) => `provisioning.raid.hardwareraidvolumes.[].${f}`),
  ...['sizegibibytes', 'physicaldisks'].map((f) => `provisioning.raid.softwareraidvolumes.[].${f}`),
  ...HINT_POINTERS.map((f) => `provisioning.raid.softwareraidvolumes.[].physicaldisks.[].${f}`),
  'provisioning.firmware', ...['virtualizationenabled', 'simultaneousmultithreadingenabled', 'sriovenabled'].map((f) => `provisioning.firmware.${f}`),
  'provisioning.customdeploy',
  'hardware.nics', 'hardware.storage', 'hardware.cpu.flags', 'hardware.nics.[].vlans', 'hardware.nics.[].lldp', 'hardware.storage.[].alternatenames',
]);

function statusNullResets(path: readonly string[]): boolean {
  const at = path.join('.');
  return STATUS_NULL_RESETS.has(at) || (path[0] === 'operationhistory' && path.length === 3 && STATUS_NULL_RESETS.has(`operationhistory.*.${path[2]}`));
}

// The metav1.Time fields of BareMetalHostStatus, by path as statusNullResets has them.
function isStatusTime(path: readonly string[]): boolean {
  const at = path.join('.');
  return at === 'lastupdated' || at === 'conditions.[].lasttransitiontime' || (path[0] === 'operationhistory' && path.length === 3 && (path[2] === 'start' || path[2] === 'end'));
}

/**
 * Why Go would not have decoded an occurrence that a later one of the same key replaced (it
 * decodes every one, and keeps the first error), or null.
 */
function shadowedError(shadowed: readonly Shadowed[]): string | null {
  for (const s of shadowed) {
    const schema = schemaAt(BareMetalHostStatus, s.path);
    if (schema === undefined) return `unknown field "${s.display}"`;
    if (isStatusTime(s.path) && typeof s.value === 'string' && !isGoRfc3339(s.value)) {
      return `${s.display}: parsing time ${JSON.stringify(s.value)} as "2006-01-02T15:04:05Z07:00": not an RFC 3339 time`;
    }
    const error = goTypeError(s.value, schema, s.display, 'BareMetalHostStatus');
    if (error !== null) return error;
  }
  return null;
}

/**
 * A number written with a fraction or an exponent (`1.0`, `1e2`) for an int field of the status:
 * encoding/json reads an int with strconv.ParseInt on the literal, which refuses it however whole
 * its value; JSON.parse keeps only the value. status.hardware is decodeHardwareDetails' to judge.
 */
function fractionForInt(literals: ReadonlyMap<string, string>): string | null {
  for (const [path, literal] of literals) {
    if (path === 'hardware' || path.startsWith('hardware.') || path.startsWith('hardware[')) continue;
    const field = fieldAtLiteralPath(BareMetalHostStatus, path);
    if (field && goKind(field.schema) === 'int') {
      return `${field.display}: cannot unmarshal number ${literal} into Go struct field BareMetalHostStatus.${field.display} of type int`;
    }
  }
  return null;
}

/**
 * A status saved in the annotation (pivot, `clusterctl move`): strict JSON, no unknown fields,
 * and only what BMO itself would save. `""` is no status. A key given twice is decoded as Go
 * decodes it (go-json.ts): each occurrence type-checked, the last setting a scalar, objects merged.
 */
export function parseStatusAnnotation(value: string): AnnotationResult<BareMetalHostStatus | null> {
  const path = annotationPath(STATUS_ANNOTATION);
  if (value === '') return { ok: true, value: null };
  const fail = (reason: string): AnnotationResult<BareMetalHostStatus | null> => ({ ok: false, error: fieldError(path, reason) });
  const parsed = parseJson(value);
  if (!parsed.ok) return fail(`error decoding status annotation: ${parsed.reason}`);
  if (parsed.json === null) return { ok: true, value: null };
  if (!isObject(parsed.json)) return fail(`error decoding status annotation: cannot unmarshal ${jsonKind(parsed.json)} into BareMetalHostStatus`);

  // JSON.parse keeps only the last of a key given twice; Go decodes each occurrence.
  const resolved = resolveGoDuplicates(value, statusNullResets);
  const literals = nonIntegerLiterals(value);
  const shadowError = shadowedError(resolved.shadowed) ?? fractionForInt(literals);
  if (shadowError !== null) return fail(`error decoding status annotation: ${shadowError}`);
  const input = foldKeys(dropNulls(resolved.value), BareMetalHostStatus) as { [key: string]: Json };
  const opStatus = input.operationalStatus;
  if (typeof opStatus === 'string' && !STATUS_ANNOTATION_OP_STATUS.includes(opStatus)) {
    return fail(`invalid operationalStatus '${opStatus}' in the ${STATUS_ANNOTATION} annotation`);
  }
  const errorType = input.errorType;
  if (typeof errorType === 'string' && !STATUS_ANNOTATION_ERROR_TYPES.includes(errorType)) {
    return fail(`invalid errorType '${errorType}' in the ${STATUS_ANNOTATION} annotation`);
  }
  // BMO's decode fails on a time that is not RFC 3339 (metav1.Time.UnmarshalJSON uses
  // time.Parse(time.RFC3339, …), "" included), so the webhook refuses the host; restored, such a
  // time would date the host's state and operations as NaN.
  for (const [where, value] of statusTimes(input)) {
    if (typeof value === 'string' && !isGoRfc3339(value)) {
      return fail(`error decoding status annotation: ${where}: parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05Z07:00": not an RFC 3339 time`);
    }
  }
  // status.hardware is BMO's HardwareDetails, decoded as strictly (and keyed) as Go decodes it.
  if (input.hardware !== undefined) {
    const hardware = decodeHardwareDetails(input.hardware, 'hardware', literals);
    if (!hardware.ok) return fail(`error decoding status annotation: ${hardware.reason}`);
    input.hardware = hardware.value as Json;
  }
  const full = withZeroValues(input);
  const result = BareMetalHostStatus.safeParse(full);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issuePath(issue.path)}: ` : '';
    return fail(`error decoding status annotation: ${where}${issue?.message ?? 'invalid status'}`);
  }
  const unknown = unknownField(full, result.data, '');
  if (unknown !== null) return fail(`error decoding status annotation: unknown field "${unknown}"`);
  return { ok: true, value: result.data };
}

// --- inspect.metal3.io and inspect.metal3.io/hardwaredetails ------------------------------------

/** `disabled` turns inspection off (deprecated for spec.inspectionMode); `""` asks for a re-inspection. */
export function parseInspectAnnotation(value: string): AnnotationResult<'disabled' | ''> {
  if (value === INSPECT_DISABLED || value === '') return { ok: true, value };
  return {
    ok: false,
    error: fieldError(annotationPath(INSPECT_ANNOTATION), `invalid value for the ${INSPECT_ANNOTATION} annotation, allowed are "disabled" or ""`, 'NotSupported'),
  };
}

/**
 * Hardware details supplied by the user for a host that is not inspected; `""` is none. Decoded as
 * BMO decodes them (hardware-details.ts): a key its HardwareDetails struct has no field for, at
 * any depth, is refused, named by its path.
 */
export function parseHardwareDetailsAnnotation(annotation: string): AnnotationResult<HardwareDetails | null> {
  if (annotation === '') return { ok: true, value: null };
  const value = firstObjectText(annotation);
  const fail = (reason: string): AnnotationResult<HardwareDetails | null> => ({
    ok: false,
    error: fieldError(annotationPath(HARDWARE_DETAILS_ANNOTATION), `error decoding the ${HARDWARE_DETAILS_ANNOTATION} annotation: ${reason}`),
  });
  const parsed = parseJson(value);
  if (!parsed.ok) return fail(parsed.reason);
  if (parsed.json === null) return { ok: true, value: null };
  if (!isObject(parsed.json)) return fail(`cannot unmarshal ${jsonKind(parsed.json)} into HardwareDetails`);
  // A key given twice: every occurrence decoded, as in the status annotation.
  const resolved = resolveGoDuplicates(value, (at) => statusNullResets(['hardware', ...at]));
  for (const s of resolved.shadowed) {
    const schema = schemaAt(HardwareDetails, s.path);
    const error = schema === undefined ? `unknown field "${s.display}"` : goTypeError(s.value, schema, s.display, 'HardwareDetails');
    if (error !== null) return fail(error);
  }
  const decoded = decodeHardwareDetails(resolved.value, '', nonIntegerLiterals(value));
  if (!decoded.ok) return fail(decoded.reason);
  const result = HardwareDetails.safeParse(decoded.value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issuePath(issue.path)}: ` : '';
    return fail(`${where}${issue?.message ?? 'invalid hardware details'}`);
  }
  return { ok: true, value: result.data };
}

/**
 * The text of the JSON object a value starts with, or the value itself when it starts with no
 * object (or the object never closes, for JSON.parse to name the error). json.Decoder.Decode, as
 * BMO reads the hardware details, ends at the closing brace and never reads what follows.
 */
function firstObjectText(value: string): string {
  const start = value.search(/\S/);
  if (start < 0 || value[start] !== '{') return value;
  let depth = 0;
  let inString = false;
  for (let i = start; i < value.length; i++) {
    const c = value[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && --depth === 0) return value.slice(0, i + 1);
  }
  return value;
}

// --- helpers over a whole host ------------------------------------------------------------------

export function isPaused(annotations: Annotations): boolean {
  return annotations !== undefined && Object.hasOwn(annotations, PAUSED_ANNOTATION);
}

export function isDetached(annotations: Annotations): boolean {
  return annotations !== undefined && Object.hasOwn(annotations, DETACHED_ANNOTATION);
}

/** BMO's InspectionDisabled: `spec.inspectionMode: disabled` or the legacy `inspect.metal3.io: disabled`. */
export function inspectionDisabled(host: {
  metadata?: { annotations?: Annotations };
  spec?: { inspectionMode?: string | undefined };
}): boolean {
  return host.spec?.inspectionMode === 'disabled' || host.metadata?.annotations?.[INSPECT_ANNOTATION] === INSPECT_DISABLED;
}
