import type { BmcAccess, BmcCredentials } from '../../../api/index.ts';
import type { HostData } from '../../../ports/index.ts';
import type { CreateNode } from '../client/index.ts';
import { nodeName } from './node-name.ts';

// Ironic's fake-hardware type runs without a BMC. With the override the node is created with it
// and fake interfaces, while driver_info still holds what the real driver would get, so
// everything but the BMC traffic is as in production.
export interface DriverOverride {
  readonly hardwareType: 'fake-hardware';
  /**
   * The fake firmware interface too (API 1.86), for tests of firmware components: opt-in, because
   * a newer Ironic's enabled_firmware_interfaces defaults to no-firmware and refuses the node.
   */
  readonly firmwareInterface?: 'fake';
}

export interface DeployImages {
  readonly kernelUrl?: string;
  readonly ramdiskUrl?: string;
  readonly isoUrl?: string;
}

export function createNodeBody(host: HostData, bmc: BmcAccess, credentials: BmcCredentials, o: { override: DriverOverride | null; deploy: DeployImages }): CreateNode {
  const spec = host.spec;
  const driverInfo: Record<string, unknown> = {
    ...bmc.driverInfo(credentials, { disableCertificateVerification: spec.bmc?.disableCertificateVerification ?? false }),
    ...(o.deploy.kernelUrl ? { deploy_kernel: o.deploy.kernelUrl } : {}),
    ...(o.deploy.ramdiskUrl ? { deploy_ramdisk: o.deploy.ramdiskUrl } : {}),
    ...(o.deploy.isoUrl && bmc.supportsVirtualMedia ? { deploy_iso: o.deploy.isoUrl } : {}),
  };
  const capabilities = [`boot_mode:${spec.bootMode === 'legacy' ? 'bios' : 'uefi'}`, ...(spec.bootMode === 'UEFISecureBoot' ? ['secure_boot:true'] : [])].join(',');
  const properties = { capabilities, ...(spec.architecture ? { cpu_arch: spec.architecture } : {}) };
  const interfaces = o.override ? { ...fakeInterfaces(), ...(o.override.firmwareInterface ? { firmware_interface: o.override.firmwareInterface } : {}) } : realInterfaces(host, bmc);
  return {
    name: nodeName(host),
    driver: o.override ? o.override.hardwareType : bmc.driver,
    driver_info: driverInfo,
    properties,
    ...interfaces,
    // Set at creation, so registration's configureNode (configure-node.ts) finds it as wanted.
    automated_clean: spec.automatedCleaningMode !== 'disabled',
    ...(spec.disablePowerOff ? { disable_power_off: true } : {}),
  };
}

/**
 * The deploy interface a host's deployment needs (BMO's deployInterface and the provision-time
 * choice in getInstanceUpdateOpts): a custom deploy method first, then a live ISO, else direct.
 */
export function deployInterfaceFor(host: HostData): 'custom-agent' | 'ramdisk' | 'direct' {
  if (host.spec.customDeploy?.method) return 'custom-agent';
  return host.spec.image?.format === 'live-iso' ? 'ramdisk' : 'direct';
}

function realInterfaces(host: HostData, bmc: BmcAccess): Record<string, string> {
  const i = bmc.interfaces;
  const fast = host.spec.inspectionMode === 'fast';
  return {
    boot_interface: i.boot,
    raid_interface: i.raid,
    inspect_interface: fast ? i.inspect : 'agent',
    deploy_interface: deployInterfaceFor(host),
    ...(i.bios ? { bios_interface: i.bios } : {}),
    ...(i.management ? { management_interface: i.management } : {}),
    ...(i.power ? { power_interface: i.power } : {}),
    ...(i.vendor ? { vendor_interface: i.vendor } : {}),
    ...(i.firmware ? { firmware_interface: i.firmware } : {}),
  };
}

function fakeInterfaces(): Record<string, string> {
  return {
    boot_interface: 'fake',
    deploy_interface: 'fake',
    inspect_interface: 'fake',
    management_interface: 'fake',
    power_interface: 'fake',
    raid_interface: 'fake',
    vendor_interface: 'fake',
    bios_interface: 'fake',
  };
}
