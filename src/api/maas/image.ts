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

/** The image fields of a MaasMachine spec: CAPMAAS's `image`, or metalfleet's osSystem + distroSeries. */
export interface ImageFields {
  readonly image?: string | undefined;
  readonly osSystem?: string | undefined;
  readonly distroSeries?: string | undefined;
}

/**
 * What a spec deploys, or null when it names no image (admission refuses such a spec; see
 * validate.ts). `image` wins when both are given, which admission also refuses.
 */
export function imageOf(spec: ImageFields): MaasImage | null {
  if (spec.image) return splitImage(spec.image);
  if (spec.osSystem && spec.distroSeries) return { osystem: spec.osSystem, distroSeries: spec.distroSeries };
  return null;
}

/** The name MAAS lists the image under in boot-resources/: `ubuntu/jammy`, `custom/my-image`. */
export function imageName(image: MaasImage): string {
  return `${image.osystem}/${image.distroSeries}`;
}
