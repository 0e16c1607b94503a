import { fieldError, type FieldError } from '../field-error.ts';
import { objectSizeErrors } from '../limits.ts';
import { objectMetaErrors } from '../names.ts';
import { splitImage } from './image.ts';
import { MAAS_PROVIDER, parseProviderId } from './provider-id.ts';
import { pruneNulls } from './prune-nulls.ts';
import { MaasCluster, MaasMachine, MaasMachineTemplate } from './schema.ts';
import { structuralErrors } from './structural.ts';

// Admission for the MAAS kinds: the CRD's structural schema, the providerID format, and on update
// CAPMAAS's webhook rules (api/v1beta1/*_webhook.go; reference/capmaas.md §1.2): image, minCPU
// and minMemory of a machine or template, and a cluster's dnsDomain, never change. CAPMAAS stops at
// the first change; here every problem is returned, so one run shows all there is to fix.

type Obj = Record<string, unknown>;

function record(value: unknown): Obj | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : undefined;
}

function at(root: unknown, ...keys: string[]): Obj | undefined {
  let cur = record(root);
  for (const key of keys) cur = record(cur?.[key]);
  return cur;
}

/** A providerID, when set, is one CAPMAAS can read and names MAAS. */
function ruleProviderId(spec: Obj | undefined, prefix: string): FieldError[] {
  const value = spec?.providerID;
  // An empty providerID is how CAPMAAS says "not allocated yet".
  if (typeof value !== 'string' || value === '') return [];
  const path = `${prefix}.providerID`;
  const parsed = parseProviderId(value);
  if (!parsed.ok) return [fieldError(path, parsed.error.message)];
  // CAPMAAS reads any provider; a MaasMachine's is always maas, and another one would make the
  // controller look up a system id MAAS never issued.
  if (parsed.provider !== MAAS_PROVIDER) {
    return [fieldError(path, `providerID ${JSON.stringify(value)} names provider ${JSON.stringify(parsed.provider)}; a MaasMachine's providerID is maas:///<zone>/<system_id>`)];
  }
  return [];
}

// What the API server checks of any object before its schema: its size and its metadata.
function objectErrors(obj: unknown): FieldError[] | null {
  const size = objectSizeErrors(obj);
  return size.length > 0 ? size : null;
}

function changed<T extends string | number>(old: unknown, next: unknown, type: 'string' | 'number'): { old: T; next: T } | null {
  // Only two readable values are compared: a missing or mistyped one is the schema's error already.
  if (typeof old !== type || typeof next !== type || old === next) return null;
  return { old: old as T, next: next as T };
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * What to deploy is named once: `image` (CAPMAAS's field), or `osSystem` with `distroSeries`. Both
 * at once would leave it to guess which one wins; neither leaves nothing to deploy.
 */
function ruleImage(spec: Obj | undefined, prefix: string): FieldError[] {
  if (!spec) return [];
  const has = (k: string) => typeof spec[k] === 'string' && spec[k] !== '';
  const image = has('image');
  const os = has('osSystem');
  const series = has('distroSeries');
  if (image && (os || series)) {
    const other = os && series ? 'osSystem and distroSeries' : os ? 'osSystem' : 'distroSeries';
    return [fieldError(`${prefix}.image`, `image and ${other} are both set; give either image (e.g. ubuntu/jammy) or osSystem with distroSeries, not both`)];
  }
  if (image) return [];
  if (os && !series) return [fieldError(`${prefix}.distroSeries`, `osSystem ${String(spec.osSystem)} needs distroSeries (the release, e.g. jammy, or the custom image's name)`, 'Required')];
  if (series && !os) return [fieldError(`${prefix}.osSystem`, `distroSeries ${String(spec.distroSeries)} needs osSystem (e.g. ubuntu, or custom for a custom image)`, 'Required')];
  // An empty image is the structural schema's error (minimum length) already.
  if (!os && spec.image === '') return [];
  if (!os) return [fieldError(`${prefix}.image`, 'Required value: give image (e.g. ubuntu/jammy or custom/my-image), or osSystem with distroSeries', 'Required')];
  return [];
}

/** A static address, when given, is an IPv4 address (MAAS's simulated and CAPMAAS's networks are IPv4). */
function ruleStaticIp(spec: Obj | undefined, prefix: string): FieldError[] {
  const address = record(spec?.staticAddress)?.address;
  if (typeof address !== 'string' || IPV4.test(address)) return [];
  return [fieldError(`${prefix}.staticAddress.address`, `${JSON.stringify(address)} is not an IPv4 address`)];
}

/**
 * An image names both halves of `<osystem>/<release>` when it has a slash: MAAS has no image
 * `/jammy` or `ubuntu/`, and the machine would wait for one for ever (ImageNotFound).
 */
function ruleImageHalves(spec: Obj | undefined, prefix: string): FieldError[] {
  const image = spec?.image;
  if (typeof image !== 'string' || !image.includes('/')) return [];
  const { osystem, distroSeries } = splitImage(image);
  if (osystem !== '' && distroSeries !== '') return [];
  return [fieldError(`${prefix}.image`, `Invalid value: ${JSON.stringify(image)}: an image with a slash is <osystem>/<release>, both given, e.g. ubuntu/jammy or custom/my-image`)];
}

/**
 * With osSystem given, distroSeries is the release alone: the deploy asks MAAS for
 * `<osSystem>/<distroSeries>`, so `ubuntu/jammy` there would be `ubuntu/ubuntu/jammy`, an image
 * MAAS never has, and every deploy would fail on it. (The `<osystem>/<release>` form is image's.)
 */
function ruleSeriesAlone(spec: Obj | undefined, prefix: string): FieldError[] {
  const os = spec?.osSystem;
  const series = spec?.distroSeries;
  if (typeof os !== 'string' || os === '' || typeof series !== 'string' || !series.includes('/')) return [];
  // With image given too, that is ruleImage's one error: osSystem and distroSeries are not used.
  if (typeof spec?.image === 'string' && spec.image !== '') return [];
  // `ubuntu/jammy` under osSystem ubuntu: the user meant the image form, and the fix is known.
  const slash = series.indexOf('/');
  const fix = series.slice(0, slash) === os && slash < series.length - 1 ? ` (e.g. distroSeries: ${series.slice(slash + 1)}, or image: ${series} without osSystem and distroSeries)` : '';
  return [fieldError(`${prefix}.distroSeries`, `Invalid value: ${JSON.stringify(series)}: with osSystem ${os}, distroSeries is the release alone, without a slash${fix}; MAAS would be asked for image ${os}/${series}, which it does not have`)];
}

// MAAS splits an allocate's tags value at commas and spaces (capmaas.md §3.2), and the client
// refuses such a tag rather than let it silently become several: refused here, before apply.
const TAG = /^[^\s,]+$/;

function ruleTags(spec: Obj | undefined, prefix: string): FieldError[] {
  const tags = spec?.tags;
  if (!Array.isArray(tags)) return [];
  return tags.flatMap((tag: unknown, i) => {
    if (typeof tag !== 'string' || TAG.test(tag)) return [];
    const why = tag === '' ? 'a MAAS tag name is not empty' : 'a MAAS tag name has no spaces or commas (MAAS would split it into several tags); give each tag as its own item';
    return [fieldError(`${prefix}.tags[${i}]`, `Invalid value: ${JSON.stringify(tag)}: ${why}`)];
  });
}

/**
 * A systemID, when given, is a MAAS system id (no slash or whitespace: it goes into the machine's
 * URL and its providerID), and the same one the providerID names: the controller reads the one
 * and writes the other from it.
 */
function ruleSystemId(spec: Obj | undefined, prefix: string): FieldError[] {
  const id = spec?.systemID;
  // Empty, as an empty providerID, is "not allocated yet" (CAPMAAS clears both on a failed deploy).
  if (typeof id !== 'string' || id === '') return [];
  if (/[\s/]/.test(id)) return [fieldError(`${prefix}.systemID`, `Invalid value: ${JSON.stringify(id)}: a MAAS system id has no slash or whitespace, e.g. abc123`)];
  const providerId = spec?.providerID;
  if (typeof providerId !== 'string' || providerId === '') return [];
  const parsed = parseProviderId(providerId);
  if (!parsed.ok || parsed.systemId === id) return [];
  return [fieldError(`${prefix}.systemID`, `Invalid value: ${JSON.stringify(id)}: providerID ${providerId} names system id ${parsed.systemId}; systemID and providerID must name the same MAAS machine`)];
}

/**
 * The field rules added after objects were stored, checked on create and on an update that
 * changes the field: an object stored before them is not made unwritable (its controller's own
 * writes, a finalizer, included), as the API server ratchets a CRD's new validation.
 */
function ruleNewerFields(spec: Obj | undefined, prefix: string, old: Obj | undefined): FieldError[] {
  const unchanged = (field: string) => old !== undefined && sameJson(old[field], spec?.[field]);
  return [
    ...(unchanged('image') ? [] : ruleImageHalves(spec, prefix)),
    ...(unchanged('osSystem') && unchanged('distroSeries') ? [] : ruleSeriesAlone(spec, prefix)),
    ...(unchanged('tags') ? [] : ruleTags(spec, prefix)),
    ...(unchanged('systemID') && unchanged('providerID') ? [] : ruleSystemId(spec, prefix)),
  ];
}

/** The deploy-option rules of a MaasMachine spec (a MaasMachine's or a template's); `old` is the stored spec on update. */
function ruleDeployOptions(spec: Obj | undefined, prefix: string, old?: Obj): FieldError[] {
  return [...ruleImage(spec, prefix), ...ruleNewerFields(spec, prefix, old), ...ruleStaticIp(spec, prefix)];
}

// metalfleet's own deploy fields are as immutable as image: a deployed machine keeps what it got.
const IMMUTABLE_DEPLOY_FIELDS = ['osSystem', 'distroSeries', 'hweKernel', 'minHweKernel'] as const;

/** CAPMAAS's ValidateUpdate of MaasMachine and MaasMachineTemplate, with its messages. */
function ruleSpecImmutable(old: Obj | undefined, spec: Obj | undefined, prefix: string, noun: string): FieldError[] {
  const errors: FieldError[] = [];
  const image = changed<string>(old?.image, spec?.image, 'string');
  if (image) errors.push(fieldError(`${prefix}.image`, `${noun} image change is not allowed, old=${image.old}, new=${image.next}`, 'Forbidden'));
  const cpu = changed<number>(old?.minCPU, spec?.minCPU, 'number');
  if (cpu) errors.push(fieldError(`${prefix}.minCPU`, `${noun} min cpu count change is not allowed, old=${cpu.old}, new=${cpu.next}`, 'Forbidden'));
  const memory = changed<number>(old?.minMemory, spec?.minMemory, 'number');
  if (memory) errors.push(fieldError(`${prefix}.minMemory`, `${noun} min memory change is not allowed, old=${memory.old} MB, new=${memory.next} MB`, 'Forbidden'));
  for (const field of IMMUTABLE_DEPLOY_FIELDS) {
    if ((old?.[field] ?? '') === (spec?.[field] ?? '')) continue;
    errors.push(fieldError(`${prefix}.${field}`, `${noun} ${field} change is not allowed, old=${String(old?.[field] ?? '')}, new=${String(spec?.[field] ?? '')}`, 'Forbidden'));
  }
  return errors;
}

/**
 * Validates a MaasMachine on create, or on update when `old` (the stored version) is given.
 * Returns [] when it is valid.
 */
export function validateMaasMachine(obj: unknown, old?: unknown): FieldError[] {
  const tooBig = objectErrors(obj);
  if (tooBig) return tooBig;
  const raw = pruneNulls(obj);
  const spec = at(raw, 'spec');
  const oldSpec = old === undefined ? undefined : at(pruneNulls(old), 'spec');
  const errors = [...objectMetaErrors(raw), ...structuralErrors(MaasMachine, raw), ...ruleProviderId(spec, 'spec'), ...ruleDeployOptions(spec, 'spec', oldSpec)];
  if (old !== undefined) errors.push(...ruleSpecImmutable(at(pruneNulls(old), 'spec'), spec, 'spec', 'maas machine'));
  return errors;
}

/** Validates a MaasMachineTemplate; the machine rules apply to `spec.template.spec`. */
export function validateMaasMachineTemplate(obj: unknown, old?: unknown): FieldError[] {
  const tooBig = objectErrors(obj);
  if (tooBig) return tooBig;
  const raw = pruneNulls(obj);
  const prefix = 'spec.template.spec';
  const spec = at(raw, 'spec', 'template', 'spec');
  const oldSpec = old === undefined ? undefined : at(pruneNulls(old), 'spec', 'template', 'spec');
  const errors = [...objectMetaErrors(raw), ...structuralErrors(MaasMachineTemplate, raw), ...ruleProviderId(spec, prefix), ...ruleDeployOptions(spec, prefix, oldSpec)];
  if (old !== undefined) errors.push(...ruleSpecImmutable(at(pruneNulls(old), 'spec', 'template', 'spec'), spec, prefix, 'maas machine template'));
  return errors;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * A cluster's API endpoint never moves (Cluster API copies it into the Cluster once), so its VIP
 * is fixed once it is reserved or the endpoint is published; before that it may still be edited.
 */
function ruleVipFixed(old: Obj | undefined, raw: unknown): FieldError[] {
  const before = at(old, 'spec', 'controlPlaneVIP');
  const after = at(raw, 'spec', 'controlPlaneVIP');
  if (sameJson(before, after)) return [];
  const reserved = at(old, 'status', 'controlPlaneVIP')?.address;
  const endpoint = at(old, 'spec', 'controlPlaneEndpoint')?.host;
  if (typeof reserved === 'string' && reserved !== '') {
    return [fieldError('spec.controlPlaneVIP', `the control-plane VIP ${reserved} is reserved and is the cluster's endpoint; it cannot change or be removed (create a new cluster for another endpoint)`, 'Forbidden')];
  }
  if (typeof endpoint === 'string' && endpoint !== '') {
    return [fieldError('spec.controlPlaneVIP', `the cluster's endpoint ${endpoint} is already published; a VIP cannot be added, changed or removed after that`, 'Forbidden')];
  }
  return [];
}

/** Validates a MaasCluster; on update its dnsDomain may not change, nor a reserved VIP. */
export function validateMaasCluster(obj: unknown, old?: unknown): FieldError[] {
  const tooBig = objectErrors(obj);
  if (tooBig) return tooBig;
  const raw = pruneNulls(obj);
  const errors = [...objectMetaErrors(raw), ...structuralErrors(MaasCluster, raw)];
  if (old !== undefined) {
    const domain = changed<string>(at(pruneNulls(old), 'spec')?.dnsDomain, at(raw, 'spec')?.dnsDomain, 'string');
    // CAPMAAS says only "changing cluster DNS Domain not allowed"; the values say what to restore.
    if (domain) errors.push(fieldError('spec.dnsDomain', `changing cluster DNS Domain not allowed, old=${domain.old}, new=${domain.next}`, 'Forbidden'));
    errors.push(...ruleVipFixed(record(pruneNulls(old)), raw));
  }
  return errors;
}
