import type { FirmwareReport, HostFirmwareSettings, HostFirmwareSettingsStatus, SchemaReference, SettingSchema } from '../../api/index.ts';
import { deepEqual, FIRMWARE_SETTINGS_CONDITIONS, setMetaCondition, INVALID_BIOS_SETTING, SETTINGS_CONFIGURATION_ERROR, validateSettings } from '../../api/index.ts';

// A HostFirmwareSettings' status after a firmware read, as BMO's hostfirmwaresettings_controller.go
// updateStatus writes it: the settings the host reports (password settings left out), the schema
// they follow, ChangeDetected when a wanted setting differs from the host's, Valid when every
// wanted setting passes the schema (reason ConfigurationError, "Invalid BIOS setting" when not).
// As BMO, the status is written only when it changed: settings, schema, or a condition's status
// (a condition's reason alone does not count), and lastUpdated is then the time of the write.

const SUCCESS = 'Success';

export interface SettingsStatusChange {
  readonly status: HostFirmwareSettingsStatus;
  /** Why a wanted setting is invalid, one line each (BMO's ValidationFailed events). */
  readonly invalid: readonly string[];
}

/** The new status, or null when BMO would write none. `schema`: absent when the backend has no registry. `now`: RFC 3339. */
export function settingsStatus(hfs: HostFirmwareSettings, report: FirmwareReport, schema: SchemaReference | undefined, rules: Readonly<Record<string, SettingSchema>> | undefined, now: string): SettingsStatusChange | null {
  const old = hfs.status;
  const settings: Record<string, string> = {};
  for (const [name, value] of Object.entries(report.settings)) if (!name.includes('Password')) settings[name] = value;
  const wanted = hfs.spec?.settings ?? {};
  const generation = hfs.metadata.generation ?? 0;
  let conditions = old?.conditions ?? [];
  let flipped = false;
  // BMO's setCondition: metav1's SetStatusCondition, the status written when one flipped.
  const set = (type: string, status: 'True' | 'False', reason: string, message: string): void => {
    const change = setMetaCondition(conditions, { type, status, reason, message }, generation, now);
    conditions = change.conditions;
    flipped ||= change.flipped;
  };
  const differs = Object.entries(wanted).some(([name, value]) => settings[name] !== String(value));
  let invalid: string[] = [];
  if (differs) {
    set(FIRMWARE_SETTINGS_CONDITIONS.changeDetected, 'True', SUCCESS, '');
    invalid = validateSettings(wanted, rules, settings).map((e) => e.reason);
    if (invalid.length === 0) set(FIRMWARE_SETTINGS_CONDITIONS.valid, 'True', SUCCESS, '');
    else set(FIRMWARE_SETTINGS_CONDITIONS.valid, 'False', SETTINGS_CONFIGURATION_ERROR, INVALID_BIOS_SETTING);
  } else {
    set(FIRMWARE_SETTINGS_CONDITIONS.valid, 'True', SUCCESS, '');
    set(FIRMWARE_SETTINGS_CONDITIONS.changeDetected, 'False', SUCCESS, '');
  }
  const dirty = flipped || !deepEqual(old?.schema, schema) || !deepEqual(old?.settings, settings);
  if (!dirty) return null;
  return { status: { ...(schema ? { schema } : {}), settings, lastUpdated: now, conditions }, invalid };
}
