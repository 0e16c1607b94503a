import type { BootResource, MaasClient } from '../client/index.ts';
import { imageKeyOf, splitImage } from '../client/index.ts';

// Whether MAAS can deploy an image, from its boot-resources/ list, read at most once a minute per
// MAAS however many machines ask (a cluster of a hundred machines is one read, not a hundred).
// MAAS itself refuses a deploy of an image it lacks only after the machine is allocated; asked
// first, nothing is allocated or deployed for an image MAAS does not have.

/** How long one read of boot-resources/ answers for. */
export const BOOT_RESOURCES_TTL_MS = 60_000;

export type ImageVerdict = { readonly found: true } | { readonly found: false; readonly message: string };

export interface ImageCheck {
  /** `image` is osystem/series; `architecture` (amd64/generic) narrows to its first part when given. */
  check(image: string, architecture?: string): Promise<ImageVerdict>;
}

export function imageCheck(client: Pick<MaasClient, 'listBootResources'>, now: () => number = Date.now): ImageCheck {
  let cached: { at: number; list: Promise<BootResource[]> } | null = null;
  const resources = (): Promise<BootResource[]> => {
    if (cached && now() - cached.at < BOOT_RESOURCES_TTL_MS) return cached.list;
    const read = { at: now(), list: client.listBootResources() };
    cached = read;
    // A failed read is not kept: the next machine asks again.
    read.list.catch(() => {
      if (cached === read) cached = null;
    });
    return read.list;
  };
  return {
    async check(image, architecture) {
      // A name that does not split (ubuntu/, /jammy) is bad input: a failure no retry mends,
      // answered before MAAS is asked anything.
      let split: { osystem: string; distroSeries: string };
      try {
        split = splitImage(image);
      } catch (err) {
        return { found: false, message: err instanceof Error ? err.message : String(err) };
      }
      const { osystem, distroSeries } = split;
      const wanted = `${osystem}/${distroSeries}`;
      const arch = architecture?.split('/')[0];
      const fits = (await resources()).filter((r) => arch === undefined || r.architecture.split('/')[0] === arch);
      const names = [...new Set(fits.map((r) => imageKeyOf(r.name)))];
      if (names.includes(wanted)) return { found: true };
      const has = names.length > 0 ? `it has ${names.join(', ')}` : 'it has none';
      return { found: false, message: `MAAS has no boot resource ${wanted}${arch ? ` for ${arch}` : ''}; ${has}` };
    },
  };
}
