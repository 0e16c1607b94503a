import { fieldError, formatFieldPath, type FieldError } from '../../field-error.ts';
import type { SettingSchema } from '../firmware.ts';
import type { IntOrString } from './host-firmware-settings.ts';

// Wanted BIOS settings checked as BMO's HostFirmwareSettings controller checks them
// (internal/controller/metal3.io/hostfirmwaresettings_controller.go validateHostFirmwareSettings)
// against the FirmwareSchema's rules (apis/metal3.io/v1alpha1/firmwareschema_types.go
// SettingSchema.Validate and FirmwareSchema.ValidateSetting), with BMO's messages. BMO has no
// admission webhook for HostFirmwareSettings: an invalid setting is reported by the Valid
// condition (False, ConfigurationError, "Invalid BIOS setting") and an event per setting, and is
// never sent to the BMC. Pure, so the host machine can decide that condition.

/** The Valid condition's reason and message when a setting is invalid (BMO's). */
export const SETTINGS_CONFIGURATION_ERROR = 'ConfigurationError';
export const INVALID_BIOS_SETTING = 'Invalid BIOS setting';

// Go's strconv.Atoi: an optional sign and decimal digits, within int64.
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
function atoi(text: string): number | null {
  if (!/^[+-]?\d+$/.test(text)) return null;
  const n = BigInt(text);
  return n < INT64_MIN || n > INT64_MAX ? null : Number(n);
}

/** intstr.IntOrString's String(): an int as its decimal digits, a string as it is. */
function asString(value: IntOrString): string {
  return typeof value === 'number' ? String(value) : value;
}

const invalid = (name: string, message: string): string => `Setting ${name} is invalid, ${message}`;

/**
 * BMO's SettingSchema.Validate: why `value` is not one `name` may be set to under `schema`, as
 * BMO words it ("Setting X is invalid, ..."), or null when it may.
 */
export function settingValueError(name: string, value: IntOrString, schema: SettingSchema): string | null {
  if (schema.read_only === true) return invalid(name, 'it is ReadOnly');
  if (name.includes('Password')) return invalid(name, 'Password fields can\'t be set');
  const text = asString(value);
  switch (schema.attribute_type) {
    case 'Enumeration':
      return (schema.allowable_values ?? []).includes(text) ? null : invalid(name, `unknown enumeration value - ${text}`);
    case 'Integer': {
      const n = typeof value === 'number' ? value : atoi(value);
      if (n === null) return invalid(name, `String ${text} entered while integer expected`);
      if (schema.lower_bound !== undefined && n < schema.lower_bound) return invalid(name, `integer ${n} is below minimum value ${schema.lower_bound}`);
      if (schema.upper_bound !== undefined && n > schema.upper_bound) return invalid(name, `integer ${n} is above maximum value ${schema.upper_bound}`);
      return null;
    }
    case 'String': {
      // Go's len(): bytes, not characters.
      const length = Buffer.byteLength(text, 'utf8');
      if (schema.min_length !== undefined && length < schema.min_length) return invalid(name, `string ${text} length is below minimum length ${schema.min_length}`);
      if (schema.max_length !== undefined && length > schema.max_length) return invalid(name, `string ${text} length is above maximum length ${schema.max_length}`);
      return null;
    }
    case 'Boolean':
      return text === 'true' || text === 'false' ? null : invalid(name, `${text} is not a boolean`);
    case 'Password':
      return invalid(name, 'passwords are immutable');
    case undefined:
      // BMO: the BIOS registry may not have given a type; the set is allowed.
      return null;
  }
}

/**
 * Every wanted setting that BMO's controller would call invalid: a Password setting, one the host
 * does not report (`current`, its status.settings, when known), one the schema does not have or
 * whose value it refuses. Without a schema (the backend has no BIOS registry), only the first two
 * apply, as in BMO. One FieldError per setting, at `spec.settings.<name>`, in name order.
 */
export function validateSettings(
  settings: Readonly<Record<string, IntOrString>>,
  schema: Readonly<Record<string, SettingSchema>> | undefined,
  current?: Readonly<Record<string, string>>,
): FieldError[] {
  const errors: FieldError[] = [];
  for (const name of Object.keys(settings).sort()) {
    const value = settings[name] as IntOrString;
    const path = formatFieldPath(['spec', 'settings', name]);
    if (name.includes('Password')) {
      errors.push(fieldError(path, 'cannot set Password field', 'Forbidden'));
      continue;
    }
    if (current !== undefined && !Object.hasOwn(current, name)) {
      errors.push(fieldError(path, `setting ${name} is not in the Status field`, 'NotSupported'));
      continue;
    }
    if (schema === undefined) continue;
    const rules = Object.hasOwn(schema, name) ? schema[name] : undefined;
    const message = rules === undefined ? invalid(name, 'it is not in the associated schema') : settingValueError(name, value, rules);
    if (message !== null) errors.push(fieldError(path, message, rules === undefined ? 'NotSupported' : 'Invalid'));
  }
  return errors;
}
