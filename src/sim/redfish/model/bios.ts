import type { BiosRegistry, BiosValue } from './bios-registry.ts';

// BIOS attributes: current values, and pending ones (the @Redfish.Settings object) that the
// next power-on or restart applies, as real BMCs do. Which attributes exist and what they may hold
// is the model's registry (bios-registry.ts); passwords are kept apart and never shown.
export type { BiosValue } from './bios-registry.ts';
export type BiosAttributes = Record<string, BiosValue>;

export interface BiosState {
  /** Every non-password attribute of the registry. */
  current: BiosAttributes;
  /** Staged changes, passwords included, applied at the next boot. */
  pending: BiosAttributes;
  /** ResetBios asks for the defaults at the next boot. */
  resetPending: boolean;
  passwords: Record<string, string>;
  /**
   * When the firmware last took staged settings (a boot with some pending): what Bios shows as
   * @Redfish.Settings Time and Messages, from which a client (sushy's Bios.update_status) tells
   * "applied" from "nothing ever applied". Null until the first such boot.
   */
  applied: { time: string } | null;
}

/** The registry's defaults; read-only attributes keep what the firmware knows (`fixed`). */
function defaults(registry: BiosRegistry, fixed: BiosAttributes): BiosAttributes {
  const out: BiosAttributes = {};
  for (const a of registry.attributes) {
    if (a.type === 'Password') continue;
    const value = a.readOnly ? (fixed[a.name] ?? a.defaultValue) : a.defaultValue;
    out[a.name] = value ?? '';
  }
  return out;
}

export function newBios(registry: BiosRegistry, serial: string): BiosState {
  const passwords = Object.fromEntries(registry.attributes.filter((a) => a.type === 'Password').map((a) => [a.name, '']));
  return { current: defaults(registry, { SerialNumber: serial }), pending: {}, resetPending: false, passwords, applied: null };
}

export function isPassword(registry: BiosRegistry, name: string): boolean {
  return registry.attributes.some((a) => a.name === name && a.type === 'Password');
}

/** Attributes as a GET shows them: a password attribute reads null, set or not, as on real BMCs. */
export function visibleAttributes(registry: BiosRegistry, attributes: BiosAttributes, withPasswords: boolean): Record<string, BiosValue | null> {
  const out: Record<string, BiosValue | null> = {};
  for (const [name, value] of Object.entries(attributes)) out[name] = isPassword(registry, name) ? null : value;
  if (withPasswords) for (const a of registry.attributes) if (a.type === 'Password') out[a.name] = null;
  return out;
}

export function applyPendingBios(bios: BiosState, registry: BiosRegistry, now: Date = new Date()): void {
  if (bios.resetPending || Object.keys(bios.pending).length > 0) bios.applied = { time: now.toISOString() };
  if (bios.resetPending) bios.current = defaults(registry, bios.current);
  for (const [name, value] of Object.entries(bios.pending)) {
    if (isPassword(registry, name)) bios.passwords[name] = String(value);
    else bios.current[name] = value;
  }
  bios.pending = {};
  bios.resetPending = false;
}
