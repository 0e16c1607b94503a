import { createHash } from 'node:crypto';
import type { FirmwareReport, FirmwareSchemaSpec, SettingSchema } from '../../api/index.ts';

// A FirmwareSchema is named by its contents, so hosts of one vendor and model share one (BMO's
// hostfirmwaresettings_controller.go GetSchemaName and getOrCreateFirmwareSchema, followed, not
// copied): every setting's name and rules, sorted, hashed; and password settings are never kept,
// as their values are never shown.

// A backend that keeps a model's registry hands the same object to every host's firmware read
// (the fixture's, a driver's cache): its name and its stored form are worked out once for all of
// them (issue 30: hashing the registry on each read was 1.5% of a fleet's CPU). A registry is
// immutable data; each entry goes with it.
const names = new WeakMap<object, string>();
const stored = new WeakMap<object, Record<string, SettingSchema>>();
let hashed = 0;

/** How many registries were hashed rather than found named (for tests and benches). */
export function firmwareSchemasHashed(): number {
  return hashed;
}

/** `schema-<8 hex>`: the same for the same registry, whatever order its settings come in. */
export function firmwareSchemaName(schema: Readonly<Record<string, SettingSchema>>): string {
  const known = names.get(schema);
  if (known !== undefined) return known;
  const name = hashedName(schema);
  names.set(schema, name);
  return name;
}

function hashedName(schema: Readonly<Record<string, SettingSchema>>): string {
  hashed += 1;
  const parts: string[] = [];
  for (const [name, rules] of Object.entries(schema)) {
    parts.push(name, rules.attribute_type ?? '', ...(rules.allowable_values ?? []));
    for (const bound of [rules.lower_bound, rules.upper_bound, rules.min_length, rules.max_length]) if (bound !== undefined) parts.push(String(bound));
    if (rules.read_only !== undefined) parts.push(String(rules.read_only));
  }
  parts.sort();
  // Go's fmt "%v" of a []string: the items space-separated in brackets.
  const hash = createHash('sha256').update(`[${parts.join(' ')}]`).digest('hex');
  return `schema-${hash.slice(0, 8)}`;
}

/** The registry as a FirmwareSchema keeps it: without password settings. One object per registry, only read. */
export function storedSchema(schema: Readonly<Record<string, SettingSchema>>): Record<string, SettingSchema> {
  const known = stored.get(schema);
  if (known !== undefined) return known;
  const kept = withoutPasswords(schema);
  stored.set(schema, kept);
  return kept;
}

function withoutPasswords(schema: Readonly<Record<string, SettingSchema>>): Record<string, SettingSchema> {
  const kept: Record<string, SettingSchema> = {};
  for (const [name, rules] of Object.entries(schema)) {
    if (name.includes('Password') || rules.attribute_type === 'Password') continue;
    kept[name] = rules;
  }
  return kept;
}

/** The spec of the FirmwareSchema a firmware report's registry is kept in; null when the backend has none. */
export function firmwareSchemaSpec(report: FirmwareReport): FirmwareSchemaSpec | null {
  if (!report.schema) return null;
  return {
    ...(report.vendor !== undefined ? { hardwareVendor: report.vendor } : {}),
    ...(report.model !== undefined ? { hardwareModel: report.model } : {}),
    schema: storedSchema(report.schema),
  };
}
