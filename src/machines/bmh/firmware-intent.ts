import type { FirmwareChanges, FirmwareIntent, FirmwareUpdate } from '../../api/index.ts';
import { deepEqual } from '../../api/index.ts';
import type { BmhState } from './types.ts';

// What a host's firmware companions ask to change, for preparing (BMO's actionPreparing: HFS and
// HFC ChangeDetected) and for servicing (doServiceIfNeeded: only what HostUpdatePolicy allows on
// reboot). An invalid HostFirmwareSettings is never applied (BMO's hostObjectHasChanges).
// Changes the last preparing or servicing applied are left out while the companions still list
// them: their status is refreshed only after the backend is read again, and BMO would apply the
// same settings again on every pass until then.

type Firmware = Pick<BmhState, 'firmware' | 'firmwareApplied'>;

/** What preparing applies: every valid pending setting and every firmware update. */
export function preparingChanges(s: Firmware): FirmwareChanges {
  return pending(s, { settings: true, updates: true });
}

/** What servicing applies: what preparing would, as far as HostUpdatePolicy allows it on reboot. */
export function servicingChanges(s: Firmware): FirmwareChanges {
  return pending(s, s.firmware?.onReboot ?? { settings: false, updates: false });
}

export function hasChanges(c: FirmwareChanges): boolean {
  return c.updates.length > 0 || Object.keys(c.settings).length > 0;
}

/** Why servicing has nothing to do, for a user who asked for it; null when it has. */
export function nothingToService(s: Firmware): string | null {
  if (hasChanges(servicingChanges(s))) return null;
  const wanted = preparingChanges(s);
  if (!hasChanges(wanted)) {
    if (s.firmware && !s.firmware.valid && Object.keys(s.firmware.settings).length > 0) {
      return 'its HostFirmwareSettings are not valid (see their Valid condition), so they are never applied; fix spec.settings';
    }
    return 'it has no pending firmware changes (its HostFirmwareSettings and HostFirmwareComponents match the host)';
  }
  const forbidden = [
    Object.keys(wanted.settings).length > 0 ? 'firmwareSettings' : null,
    wanted.updates.length > 0 ? 'firmwareUpdates' : null,
  ].filter((f): f is string => f !== null);
  return `its HostUpdatePolicy does not allow ${forbidden.join(' or ')} on a provisioned host; set spec.${forbidden[0] ?? 'firmwareSettings'}: onReboot in the HostUpdatePolicy of the same name`;
}

function pending(s: Firmware, allowed: { settings: boolean; updates: boolean }): FirmwareChanges {
  const intent = s.firmware;
  if (!intent) return { settings: {}, updates: [] };
  const applied = s.firmwareApplied;
  const settings: Record<string, string> = {};
  if (allowed.settings && intent.valid) {
    for (const [name, value] of Object.entries(intent.settings)) {
      if (applied?.settings[name] !== value) settings[name] = value;
    }
  }
  const updates = allowed.updates ? intent.updates.filter((u) => !applied?.updates.some((a) => sameUpdate(a, u))) : [];
  return { settings, updates };
}

/**
 * Applied changes the companions no longer list are forgotten: once the backend's answer shows in
 * their status, a later request for the same value (someone changed it on the host) applies again.
 */
export function stillApplied(applied: FirmwareChanges | null, intent: FirmwareIntent): FirmwareChanges | null {
  if (!applied) return null;
  const settings: Record<string, string> = {};
  for (const [name, value] of Object.entries(applied.settings)) if (intent.settings[name] === value) settings[name] = value;
  const updates = applied.updates.filter((a) => intent.updates.some((u) => sameUpdate(a, u)));
  const kept = { settings, updates };
  if (!hasChanges(kept)) return null;
  return deepEqual(kept, applied) ? applied : kept;
}

/** The applied record after a preparing or servicing that sent `sent` finished. */
export function withApplied(applied: FirmwareChanges | null, sent: FirmwareChanges): FirmwareChanges | null {
  if (!hasChanges(sent)) return applied;
  return {
    settings: { ...applied?.settings, ...sent.settings },
    updates: [...(applied?.updates ?? []).filter((a) => !sent.updates.some((u) => u.component === a.component)), ...sent.updates],
  };
}

function sameUpdate(a: FirmwareUpdate, b: FirmwareUpdate): boolean {
  return a.component === b.component && a.url === b.url;
}
