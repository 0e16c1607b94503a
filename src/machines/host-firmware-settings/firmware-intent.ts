import type { FirmwareIntent, FirmwareSchema, HostFirmwareComponents, HostFirmwareSettings, HostUpdatePolicy } from '../../api/index.ts';
import { validateSettings } from '../../api/index.ts';

// What a host's firmware companions ask of it, as its actor hands it to the machine (the
// `firmwareIntent` event): BMO's getHostFirmwareSettings/getHostFirmwareComponents and
// acquireHostUpdatePolicy (baremetalhost_controller.go), read from the objects themselves.
//   settings  HostFirmwareSettings spec.settings the host does not have yet (its status), and only
//             when every wanted setting is valid: an invalid one is never sent, nor its fellows.
//   updates   HostFirmwareComponents spec.updates.
//   valid     the wanted settings pass the FirmwareSchema (and are settings the host has).
//   onReboot  HostUpdatePolicy lets a provisioned host take settings / updates on its next reboot.

export function firmwareIntentOf(hfs: HostFirmwareSettings | undefined, hfc: HostFirmwareComponents | undefined, hup: HostUpdatePolicy | undefined, schema: FirmwareSchema | undefined): FirmwareIntent {
  const wanted = hfs?.spec?.settings ?? {};
  const current = hfs?.status?.settings;
  const valid = validateSettings(wanted, schema?.spec?.schema, current).length === 0;
  const settings: Record<string, string> = {};
  if (valid) {
    for (const [name, value] of Object.entries(wanted)) if (current?.[name] !== String(value)) settings[name] = String(value);
  }
  return {
    settings,
    updates: [...(hfc?.spec?.updates ?? [])],
    valid,
    onReboot: { settings: hup?.spec?.firmwareSettings === 'onReboot', updates: hup?.spec?.firmwareUpdates === 'onReboot' },
  };
}
