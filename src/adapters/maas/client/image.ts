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
