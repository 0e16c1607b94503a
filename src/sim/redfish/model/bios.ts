// BIOS attributes: current values, and pending ones (the @Redfish.Settings object) that the
// next power-on or restart applies, as real BMCs do.
export type BiosValue = string | number | boolean;
export type BiosAttributes = Record<string, BiosValue>;

export const DEFAULT_BIOS: Readonly<BiosAttributes> = {
  BootMode: 'Uefi',
  ProcVirtualization: 'Enabled',
  LogicalProc: 'Enabled',
  SriovGlobalEnable: 'Disabled',
  EmbeddedNic1: 'Enabled',
  PxeDev1EnDis: 'Enabled',
  NumLock: 'On',
  SerialNumber: 'SIM-0000',
  BootDelaySeconds: 0,
  SecureBootAllowed: true,
};

export interface BiosState {
  current: BiosAttributes;
  pending: BiosAttributes;
  /** ResetBios asks for the defaults at the next boot. */
  resetPending: boolean;
  passwords: Record<string, string>;
}

export function newBios(serial: string): BiosState {
  return { current: { ...DEFAULT_BIOS, SerialNumber: serial }, pending: {}, resetPending: false, passwords: { AdminPassword: '', UserPassword: '' } };
}

/** Why `changes` cannot be staged, or undefined: only known attributes, each of its own type. */
export function biosProblem(current: BiosAttributes, changes: Record<string, unknown>): string | undefined {
  for (const [name, value] of Object.entries(changes)) {
    if (!(name in current)) return `unknown BIOS attribute ${name}`;
    if (typeof value !== typeof current[name]) return `BIOS attribute ${name} must be a ${typeof current[name]}`;
  }
  return undefined;
}

export function applyPendingBios(bios: BiosState): void {
  if (bios.resetPending) bios.current = { ...DEFAULT_BIOS, SerialNumber: bios.current.SerialNumber ?? '' };
  bios.current = { ...bios.current, ...bios.pending };
  bios.pending = {};
  bios.resetPending = false;
}
