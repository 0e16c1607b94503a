// How a MaasMachine `spec.image` becomes the deploy call's `osystem` and `distro_series`
// (reference/capmaas.md §2.4): split at the first `/`; a name without one is a custom image.

export const CUSTOM_OSYSTEM = 'custom';

export type MaasImage = { osystem: string; distroSeries: string };

/** `rhel/rocky-92` → rhel + rocky-92; `custom/u-2204-0-k-1243-0` → custom + u-2204-0-k-1243-0; `u-2204` → custom + u-2204. */
export function splitImage(image: string): MaasImage {
  const slash = image.indexOf('/');
  if (slash === -1) return { osystem: CUSTOM_OSYSTEM, distroSeries: image };
  return { osystem: image.slice(0, slash), distroSeries: image.slice(slash + 1) };
}
