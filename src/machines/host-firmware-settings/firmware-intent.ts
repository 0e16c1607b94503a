import type { FirmwareIntent, FirmwareSchema, FirmwareUpdate, HostFirmwareComponents, HostFirmwareSettings, HostUpdatePolicy } from '../../api/index.ts';
import { validateSettings, validateUpdateComponents } from '../../api/index.ts';

// What a host's firmware companions ask of it, as its actor hands it to the machine (the
// `firmwareIntent` event): BMO's getHostFirmwareSettings/getHostFirmwareComponents and
// acquireHostUpdatePolicy (baremetalhost_controller.go), read from the objects themselves.
//   settings  HostFirmwareSettings spec.settings the host does not have yet (its status), and only
//             once its status is read and every wanted setting is valid: an invalid one is never
//             sent, nor its fellows.
//   updates   HostFirmwareComponents spec.updates its status.updates does not record yet (BMO's
//             getUpdatesDifference: a component with the same URL was flashed already), and none
//             when a component is not one BMO knows (bios, bmc, nic:<id>): its HFC is not Valid.
//   valid     the wanted settings pass the FirmwareSchema (and are settings the host has).
//   onReboot  HostUpdatePolicy lets a provisioned host take settings / updates on its next reboot.

export function firmwareIntentOf(hfs: HostFirmwareSettings | undefined, hfc: HostFirmwareComponents | undefined, hup: HostUpdatePolicy | undefined, schema: FirmwareSchema | undefined): FirmwareIntent {
  const wanted = hfs?.spec?.settings ?? {};
  const current = hfs?.status?.settings;
  const valid = validateSettings(wanted, schema?.spec?.schema, current).length === 0;
  const settings: Record<string, string> = {};
  // Before the first firmware read neither the host's settings nor its schema are known, so the
  // wanted ones cannot be judged yet (validateSettings passes all but passwords): none is sent
  // until the read, as BMO sends none before its settings controller found them Valid.
  if (valid && current !== undefined) {
    for (const [name, value] of Object.entries(wanted)) if (current[name] !== String(value)) settings[name] = String(value);
  }
  return {
    settings,
    updates: updatesToSend(hfc),
    valid,
    onReboot: { settings: hup?.spec?.firmwareSettings === 'onReboot', updates: hup?.spec?.firmwareUpdates === 'onReboot' },
  };
}

function updatesToSend(hfc: HostFirmwareComponents | undefined): FirmwareUpdate[] {
  const wanted = hfc?.spec?.updates ?? [];
  // BMO's Valid False (InvalidComponent): getHostFirmwareComponents reports no change to apply.
  if (validateUpdateComponents(wanted).length > 0) return [];
  const applied = new Map((hfc?.status?.updates ?? []).map((u) => [u.component, u.url]));
  return wanted.filter((u) => applied.get(u.component) !== u.url);
}
