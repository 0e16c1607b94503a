import type { BootEvent } from '../redfish/index.ts';
import { ipxeConfigPath, parseIpxeDeploy } from './ipxe-config.ts';

// What a simulated server's firmware finds when it boots: the deploy ramdisk (an agent is to
// start), the installed OS, or nothing bootable. Network boot follows what Ironic prepared: the
// iPXE config for one of the server's MACs, its kernel and initrd, fetched from the boot server as
// a real NIC would, so a boot Ironic did not prepare boots nothing.
export type BootOutcome =
  | { readonly kind: 'ramdisk'; readonly via: 'pxe' | 'virtual media'; readonly ironicUrl: string; readonly detail: string; readonly inspectionCallbackUrl?: string }
  | { readonly kind: 'os'; readonly detail: string }
  | { readonly kind: 'nothing'; readonly detail: string };

export interface FirmwareContext {
  readonly macs: readonly string[];
  /** The boot server (Ironic's http_url), where iPXE configs and boot files are. */
  readonly bootUrl: string;
  /** Ironic's API as the deploy ISO was built with it (virtual media carries no parameters here). */
  readonly ironicUrl: string;
  /** The URLs whose content is the deploy ramdisk's ISO. */
  readonly deployIsoUrls: readonly string[];
  readonly diskBootable: () => boolean;
  readonly fetch: (url: string) => Promise<Buffer | null>;
}

export async function firmwareBoot(event: BootEvent, ctx: FirmwareContext): Promise<BootOutcome> {
  switch (event.target) {
    case 'Pxe':
    case 'UefiHttp':
      return networkBoot(ctx);
    case 'Cd':
    case 'Floppy':
    case 'Usb':
      return mediaBoot(event, ctx);
    // Both wait at a console for someone: the boot goes no further.
    case 'BiosSetup':
      return { kind: 'nothing', detail: 'BiosSetup: stopped in the firmware setup screen' };
    case 'UefiShell':
      return { kind: 'nothing', detail: 'UefiShell: stopped at the UEFI shell prompt' };
    default:
      return ctx.diskBootable() ? { kind: 'os', detail: `booted the installed OS from ${event.target}` } : { kind: 'nothing', detail: `${event.target}: no bootable disk` };
  }
}

async function networkBoot(ctx: FirmwareContext): Promise<BootOutcome> {
  for (const mac of ctx.macs) {
    const script = await ctx.fetch(`${ctx.bootUrl}/${ipxeConfigPath(mac)}`);
    if (script === null) continue;
    const deploy = parseIpxeDeploy(script.toString('utf8'));
    if (deploy === null) return { kind: 'nothing', detail: `iPXE config for ${mac} has no deploy kernel` };
    for (const url of [deploy.kernelUrl, deploy.initrdUrl]) {
      if ((await ctx.fetch(url)) === null) return { kind: 'nothing', detail: `iPXE: cannot fetch ${url}` };
    }
    const api = deploy.params.get('ipa-api-url');
    if (api === undefined || api === '') return { kind: 'nothing', detail: `iPXE config for ${mac} names no ipa-api-url` };
    // Agent inspection (Ironic 22.1+) boots the ramdisk with where to post its inventory.
    const inspect = deploy.params.get('ipa-inspection-callback-url');
    return { kind: 'ramdisk', via: 'pxe', ironicUrl: api, detail: `iPXE on ${mac}: ${deploy.kernelUrl}`, ...(inspect ? { inspectionCallbackUrl: inspect } : {}) };
  }
  return { kind: 'nothing', detail: `PXE: no iPXE config for ${ctx.macs.join(', ')}` };
}

async function mediaBoot(event: BootEvent, ctx: FirmwareContext): Promise<BootOutcome> {
  const { image, inserted } = event.virtualMedia;
  if (!inserted || image === null) return { kind: 'nothing', detail: `${event.target}: no virtual media inserted` };
  const bytes = await ctx.fetch(image);
  if (bytes === null) return { kind: 'nothing', detail: `${event.target}: cannot fetch ${image}` };
  const deployIsos = await Promise.all(ctx.deployIsoUrls.map((u) => ctx.fetch(u)));
  if (!deployIsos.some((iso) => iso !== null && iso.equals(bytes))) return { kind: 'nothing', detail: `${event.target}: ${image} is not the deploy ramdisk` };
  return { kind: 'ramdisk', via: 'virtual media', ironicUrl: ctx.ironicUrl, detail: `virtual media ${image}` };
}
