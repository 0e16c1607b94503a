import { createHash } from 'node:crypto';
import type { FirmwareReport, FirmwareSchemaSpec, SettingSchema } from '../../api/index.ts';

// A FirmwareSchema is named by its contents, so hosts of one vendor and model share one (BMO's
// hostfirmwaresettings_controller.go GetSchemaName and getOrCreateFirmwareSchema, followed, not
// copied): every setting's name and rules, sorted, hashed; and password settings are never kept,
// as their values are never shown.

/** `schema-<8 hex>`: the same for the same registry, whatever order its settings come in. */
export function firmwareSchemaName(schema: Readonly<Record<string, SettingSchema>>): string {
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

/** The registry as a FirmwareSchema keeps it: without password settings. */
export function storedSchema(schema: Readonly<Record<string, SettingSchema>>): Record<string, SettingSchema> {
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
