import type { z } from 'zod';
import { fieldError, formatFieldPath, type FieldError } from '../../field-error.ts';
import { objectSizeErrors } from '../../limits.ts';
import { pruneNulls } from '../../maas/prune-nulls.ts';
import { structuralErrors } from '../../maas/structural.ts';
import { objectMetaErrors } from '../../names.ts';
import { FirmwareSchema } from './firmware-schema.ts';
import { HardwareData } from './hardware-data.ts';
import { HostFirmwareComponents } from './host-firmware-components.ts';
import { HostFirmwareSettings } from './host-firmware-settings.ts';
import { HostUpdatePolicy } from './host-update-policy.ts';
import { updateUrlError } from './validate-updates.ts';

// Admission for BMO's companion kinds, as the API server with BMO's CRDs and webhooks admits them:
// the object's size and metadata, the CRD's structural schema, and BMO's webhook rules. Of these
// kinds only HostFirmwareComponents has a webhook in BMO (its update URLs, on create and update
// alike); settings against a FirmwareSchema and component names are the controller's to judge
// (validate-settings.ts, validate-updates.ts), so they do not refuse an object here.

type Obj = Record<string, unknown>;

function admit(schema: z.ZodType, obj: unknown, rules: (raw: unknown) => FieldError[] = () => []): FieldError[] {
  const size = objectSizeErrors(obj);
  if (size.length > 0) return size;
  // None of BMO's fields of these kinds is nullable: the API server prunes a null before it
  // validates (BMO's own FirmwareSchema sample has `spec:` with no value).
  const raw = pruneNulls(obj);
  return [...objectMetaErrors(raw), ...structuralErrors(schema, raw), ...rules(raw)];
}

export function validateHardwareData(obj: unknown): FieldError[] {
  return admit(HardwareData, obj);
}

export function validateFirmwareSchema(obj: unknown): FieldError[] {
  return admit(FirmwareSchema, obj);
}

export function validateHostFirmwareSettings(obj: unknown): FieldError[] {
  return admit(HostFirmwareSettings, obj);
}

/** BMO's webhook checks the same on create and on update: no field is immutable. */
export function validateHostFirmwareComponents(obj: unknown): FieldError[] {
  return admit(HostFirmwareComponents, obj, (raw) => {
    const updates = ((raw as Obj | undefined)?.spec as Obj | undefined)?.updates;
    if (!Array.isArray(updates)) return [];
    // An update without a component or URL is the schema's error already, reported once.
    return updates.flatMap((item: unknown, i) => {
      const update = (item ?? {}) as Obj;
      if (typeof update.component !== 'string' || typeof update.url !== 'string') return [];
      const message = updateUrlError({ component: update.component, url: update.url });
      return message === null ? [] : [fieldError(formatFieldPath(['spec', 'updates', i, 'url']), message)];
    });
  });
}

export function validateHostUpdatePolicy(obj: unknown): FieldError[] {
  return admit(HostUpdatePolicy, obj);
}
