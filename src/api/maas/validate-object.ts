import type { FieldError } from '../field-error.ts';
import { BMH_COMPANION_KINDS, type BmhCompanionKind } from '../bmh/companions/kinds.ts';
import {
  validateFirmwareSchema, validateHardwareData, validateHostFirmwareComponents, validateHostFirmwareSettings, validateHostUpdatePolicy,
} from '../bmh/companions/validate.ts';
import { BMH_API_VERSION } from '../bmh/schema.ts';
import { validateBareMetalHost } from '../bmh/validate.ts';
import type { ValidateOptions } from '../bmh/validate.ts';
import { checkAsCreated } from '../generate-name.ts';
import { kindOf } from '../manifest.ts';
import { MAAS_API_GROUP, MAAS_KINDS, type MaasKind } from './constants.ts';
import { validateMaasCluster, validateMaasMachine, validateMaasMachineTemplate } from './validate.ts';

// One entry point for every kind metalfleet admits: BareMetalHost, BMO's companion kinds and the
// three MAAS kinds. Other kinds (Secrets, Cluster API's own objects) have an owner elsewhere and get null.

export type ValidatedKind = 'BareMetalHost' | BmhCompanionKind | MaasKind;

export type ValidationResult = { kind: ValidatedKind; errors: FieldError[] };

const VALIDATORS: Record<ValidatedKind, (obj: unknown, old: unknown, opts: ValidateOptions) => FieldError[]> = {
  BareMetalHost: validateBareMetalHost,
  // BMO validates these the same on create and update (no field is immutable).
  HardwareData: (obj) => validateHardwareData(obj),
  FirmwareSchema: (obj) => validateFirmwareSchema(obj),
  HostFirmwareSettings: (obj) => validateHostFirmwareSettings(obj),
  HostFirmwareComponents: (obj) => validateHostFirmwareComponents(obj),
  HostUpdatePolicy: (obj) => validateHostUpdatePolicy(obj),
  MaasCluster: validateMaasCluster,
  MaasMachine: validateMaasMachine,
  MaasMachineTemplate: validateMaasMachineTemplate,
};

function isCompanionKind(kind: string): kind is BmhCompanionKind {
  return (BMH_COMPANION_KINDS as readonly string[]).includes(kind);
}

function isMaasKind(kind: string): kind is MaasKind {
  return (MAAS_KINDS as readonly string[]).includes(kind);
}

/**
 * Which of the kinds metalfleet validates an object (or manifest document) is, from its apiVersion
 * and kind; null for any other. An object without apiVersion still counts, so validation can name
 * the missing field. A MAAS kind of another group is not ours; one of another version of the MAAS
 * group is, and its validation then names the unsupported apiVersion.
 */
export function validatedKindOf(doc: { apiVersion?: unknown; kind?: unknown }): ValidatedKind | null {
  const kind = typeof doc.kind === 'string' ? doc.kind : undefined;
  const apiVersion = typeof doc.apiVersion === 'string' ? doc.apiVersion : undefined;
  if (kind === undefined) return null;
  if (kindOf({ apiVersion, kind }) === 'BareMetalHost') return 'BareMetalHost';
  // As a MAAS kind: one of metal3.io of another version is ours, and its validation names the apiVersion.
  if (isCompanionKind(kind) && (apiVersion === undefined || apiVersion.startsWith(`${BMH_API_VERSION.split('/')[0] ?? ''}/`))) return kind;
  if (isMaasKind(kind) && (apiVersion === undefined || apiVersion.startsWith(`${MAAS_API_GROUP}/`))) return kind;
  return null;
}

/**
 * Validates `obj` by its kind, as a create, or as an update of `old` (the stored version of the
 * same object). Null for a kind metalfleet does not validate. `opts` carries what loaded
 * provisioner plugins add (their BMC address schemes).
 */
export function validateObject(obj: unknown, old?: unknown, opts: ValidateOptions = {}): ValidationResult | null {
  const kind = obj !== null && typeof obj === 'object' ? validatedKindOf(obj) : null;
  if (kind === null) return null;
  const check = (o: unknown): FieldError[] => VALIDATORS[kind](o, old, opts);
  // An object named by generateName is checked under the name it will get (a create, or the
  // update of the stored version validate --old paired with it by generateName).
  return { kind, errors: checkAsCreated(obj, check) };
}
