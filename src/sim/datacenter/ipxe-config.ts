// The iPXE script Ironic writes for a node (ipxe_config.template, deploy section): what a server's
// network boot firmware reads to find its kernel, its ramdisk and the kernel's parameters.
export interface IpxeDeploy {
  readonly kernelUrl: string;
  readonly initrdUrl: string;
  /** Kernel command-line parameters (`ipa-api-url=...`, `BOOTIF=${mac}`, ...). */
  readonly params: ReadonlyMap<string, string>;
}

/** The `:deploy` section's kernel and initrd lines, or null when the script has none. */
export function parseIpxeDeploy(script: string): IpxeDeploy | null {
  if (!script.startsWith('#!ipxe')) return null;
  const section = script.split(/^:deploy\s*$/m)[1]?.split(/^:/m)[0] ?? '';
  const kernel = /^kernel\s+(.*)$/m.exec(section)?.[1];
  const initrd = /^initrd\s+(.*)$/m.exec(section)?.[1];
  if (kernel === undefined || initrd === undefined) return null;
  const words = (line: string): string[] => line.replace(/\|\|.*$/, '').trim().split(/\s+/).filter((w) => !w.startsWith('--timeout') && !/^\d+$/.test(w));
  const [kernelUrl, ...args] = words(kernel);
  const [initrdUrl] = words(initrd);
  if (kernelUrl === undefined || initrdUrl === undefined) return null;
  const params = new Map<string, string>();
  for (const arg of args) {
    const eq = arg.indexOf('=');
    params.set(eq < 0 ? arg : arg.slice(0, eq), eq < 0 ? '' : arg.slice(eq + 1));
  }
  return { kernelUrl, initrdUrl, params };
}

/** Where Ironic links a MAC's iPXE config under its http_root (pxe_utils, iPXE: dashes, no 01- type). */
export function ipxeConfigPath(mac: string): string {
  return `pxelinux.cfg/${mac.toLowerCase().replace(/:/g, '-')}`;
}
