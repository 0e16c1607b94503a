import { z } from 'zod';
import type { Call, Send } from './call.ts';
import { parse } from './call.ts';
import { formPairs } from './form.ts';

// CAPMAAS's splitImage (capmaas.md §2.4): MaasMachine `image` `rhel/rocky-92` deploys osystem
// `rhel` with distro_series `rocky-92`; a name without '/' is a custom image, deployed as osystem
// `custom` with the whole name as the series. The split is at the first '/', so whatever follows
// it — even another '/' — is the series.
export function splitImage(image: string): { osystem: string; distroSeries: string } {
  const name = image.trim();
  if (name === '') throw new Error('maas image: the image name is empty (expected e.g. ubuntu/jammy or a custom image name)');
  const slash = name.indexOf('/');
  if (slash < 0) return { osystem: 'custom', distroSeries: name };
  const osystem = name.slice(0, slash);
  const distroSeries = name.slice(slash + 1);
  if (osystem === '' || distroSeries === '') {
    throw new Error(`maas image: ${JSON.stringify(name)} has an empty ${osystem === '' ? 'osystem before' : 'series after'} the '/' (expected osystem/series, e.g. ubuntu/jammy)`);
  }
  return { osystem, distroSeries };
}

// boot-resources/: the images MAAS can deploy (api/boot_resources.py boot_resource_to_dict).
// `name` is osystem/release (ubuntu/jammy, centos/centos70), or an uploaded custom image's name
// (custom/my-image, or a bare name MAAS files under custom); `architecture` is arch/subarch, the
// subarch of a synced Ubuntu image being its kernel (amd64/ga-22.04, amd64/hwe-22.04).
export const BootResource = z.looseObject({
  id: z.number().int(),
  type: z.string(),
  name: z.string(),
  architecture: z.string(),
  subarches: z.string().optional(),
  title: z.string().optional(),
  base_image: z.string().optional(),
});
export type BootResource = z.infer<typeof BootResource>;

export const BootResourceList = z.array(BootResource);

/** The name an image goes by in MAAS's OS list: a name without '/' is a custom image (list_all_usable_osystems). */
export function imageKeyOf(resourceName: string): string {
  return resourceName.includes('/') ? resourceName : `custom/${resourceName}`;
}

export interface ImageCalls {
  /** GET /boot-resources/ (type: all, synced or uploaded). */
  listBootResources(type?: 'all' | 'synced' | 'uploaded'): Promise<BootResource[]>;
}

export function imageCalls(request: Send): ImageCalls {
  return {
    async listBootResources(type) {
      const c: Call = { method: 'GET', path: '/boot-resources/', route: 'GET /boot-resources/', ...(type ? { query: formPairs({ type }) } : {}) };
      return parse(c, BootResourceList, await request(c));
    },
  };
}
