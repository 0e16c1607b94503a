// The version a firmware image URL installs. A real BMC reads the version out of the image; this
// server takes it from the URL, so a test chooses it by naming the file:
//   the first dotted number (at least two parts) in the URL's last path segment, verbatim,
//   e.g. http://fw/bmc-2.11.0.bin -> "2.11.0", http://fw/BIOS_v1.4.img -> "1.4";
//   with none, the whole last segment (http://fw/latest -> "latest").

export function firmwareVersionFromUrl(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url;
  }
  const file = path.split('/').filter((s) => s !== '').pop() ?? url;
  const m = /\d+(?:\.\d+)+/.exec(file);
  return m ? m[0] : file;
}
