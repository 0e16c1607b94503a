import type { BareMetalHost } from '../../api/index.ts';

// The annotations the machine reacts to (reference/bmo.md §1.7).
export const PAUSED = 'baremetalhost.metal3.io/paused';
export const DETACHED = 'baremetalhost.metal3.io/detached';
export const REBOOT = 'reboot.metal3.io';
export const INSPECT = 'inspect.metal3.io';
export const HARDWARE_DETAILS = 'inspect.metal3.io/hardwaredetails';

export interface RebootRequest { key: string; suffixed: boolean; mode: 'soft' | 'hard'; force: boolean; malformed: boolean }
export interface DetachRequest { deleteAction: 'delay' | 'delete'; force: boolean; malformed: boolean }

export function annotationsOf(host: BareMetalHost): Record<string, string> {
  return host.metadata.annotations ?? {};
}

export function isPaused(host: BareMetalHost): boolean {
  return PAUSED in annotationsOf(host);
}

export function rebootRequests(host: BareMetalHost): RebootRequest[] {
  const out: RebootRequest[] = [];
  for (const [key, value] of Object.entries(annotationsOf(host))) {
    if (key !== REBOOT && !key.startsWith(`${REBOOT}/`)) continue;
    const parsed = parseJsonObject(value);
    const malformed = value.trim() !== '' && parsed === null;
    const mode = parsed?.['mode'] === 'hard' ? 'hard' : 'soft';
    out.push({ key, suffixed: key !== REBOOT, mode, force: parsed?.['force'] === true, malformed });
  }
  return out;
}

export function detachRequest(host: BareMetalHost): DetachRequest | null {
  const value = annotationsOf(host)[DETACHED];
  if (value === undefined) return null;
  const parsed = parseJsonObject(value);
  const malformed = value.trim() !== '' && parsed === null;
  return {
    deleteAction: parsed?.['deleteAction'] === 'delay' ? 'delay' : 'delete',
    force: parsed?.['force'] === true,
    malformed,
  };
}

// `inspect.metal3.io: disabled` (or spec.inspectionMode: disabled) turns inspection off; an
// empty value on an available host asks for a fresh inspection.
export function inspectionDisabled(host: BareMetalHost): boolean {
  return host.spec.inspectionMode === 'disabled' || annotationsOf(host)[INSPECT] === 'disabled';
}

export function inspectionRequested(host: BareMetalHost): boolean {
  const value = annotationsOf(host)[INSPECT];
  return value !== undefined && value !== 'disabled';
}

function parseJsonObject(value: string): Record<string, unknown> | null {
  if (value.trim() === '') return null;
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
