// Reading op=deploy / op=power_on parameters.

/** MAAS's default_distro_series, used when neither the request nor the machine names one. */
export const DEFAULT_DISTRO_SERIES = 'noble';

/** user_data arrives base64-encoded; text that is not base64 is kept as sent. */
export function decodeUserData(text: string): string {
  const compact = text.replace(/\s+/g, '');
  if (compact.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return Buffer.from(compact, 'base64').toString('utf8');
  return text;
}

/** swap_size as MachineForm.clean_swap_size reads it: bytes, or K/M/G/T (powers of 1000). */
export function parseSwapSize(text: string): number | null | undefined {
  if (text === '') return null;
  const multipliers: Record<string, number> = { K: 1e3, M: 1e6, G: 1e9, T: 1e12 };
  const suffix = text.slice(-1);
  const multiplier = multipliers[suffix];
  const digits = multiplier === undefined ? text : text.slice(0, -1);
  if (!/^\s*[+-]?\d+\s*$/.test(digits)) return undefined;
  return Number(digits.trim()) * (multiplier ?? 1);
}
