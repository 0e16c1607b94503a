import { fieldError, type FieldError } from '../field-error.ts';
import { objectSizeErrors } from '../limits.ts';
import { objectMetaErrors } from '../names.ts';
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

/** The deploy-option rules of a MaasMachine spec (a MaasMachine's or a template's). */
function ruleDeployOptions(spec: Obj | undefined, prefix: string): FieldError[] {
  return [...ruleImage(spec, prefix), ...ruleStaticIp(spec, prefix)];
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
  const errors = [...objectMetaErrors(raw), ...structuralErrors(MaasMachine, raw), ...ruleProviderId(spec, 'spec'), ...ruleDeployOptions(spec, 'spec')];
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
  const errors = [...objectMetaErrors(raw), ...structuralErrors(MaasMachineTemplate, raw), ...ruleProviderId(spec, prefix), ...ruleDeployOptions(spec, prefix)];
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
