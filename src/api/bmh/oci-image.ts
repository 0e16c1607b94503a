// OCI images as BMO names them (Image.IsOCI, secretutils' extractRegistryHost): one place for the
// validation rules, the host's pull-secret lookup and the Ironic adapter to ask.

const OCI_SCHEME = 'oci://';

/** Whether an image URL names an OCI artifact: the oci:// scheme, in any case. */
export function isOciUrl(url: string): boolean {
  return url.toLowerCase().startsWith(OCI_SCHEME);
}

/** The registry of an oci:// URL as BMO takes it: everything before the first "/" after the scheme. */
export function ociRegistryHost(url: string): string {
  return url.slice(OCI_SCHEME.length).split('/')[0] ?? '';
}
