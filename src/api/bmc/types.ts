// The BMC types metalfleet drives, one row each, as the baremetal-operator registers them
// (reference/bmo.md §2.2). No ilo4, irmc, ibmc or WSMAN idrac: BMO dropped them.

export const BMC_TYPES = [
  'ipmi', 'libvirt',
  'redfish', 'ilo5-redfish', 'idrac-redfish',
  'redfish-virtualmedia', 'ilo5-virtualmedia', 'idrac-virtualmedia',
  'redfish-uefihttp',
] as const;
export type BmcType = (typeof BMC_TYPES)[number];

export type BmcDriver = 'ipmi' | 'redfish' | 'idrac';
export type BmcTransport = 'http' | 'https';

/** Ironic hardware interfaces set on the node; an absent one is left to the driver's default. */
export type BmcInterfaces = {
  boot: string;
  bios?: string;
  management?: string;
  power?: string;
  raid: string;
  vendor?: string;
  /** The out-of-band inspect interface, or `agent` when the BMC has none (IPA inspection only). */
  inspect: string;
  firmware?: string;
};

export type BmcCredentials = { username: string; password: string };
export type DriverInfoOptions = { disableCertificateVerification: boolean };
export type DriverInfo = Record<string, string | number | boolean>;

export type BmcAccess = {
  /** The scheme as written, lower-cased, e.g. `redfish+https`; BMO names the driver by it in messages. */
  scheme: string;
  /** Hostname or IP, IPv6 without brackets. */
  host: string;
  port: number | null;
  path: string;
  type: BmcType;
  /** From a `+http`/`+https` suffix; null means the driver's default (https for Redfish). */
  transport: BmcTransport | null;
  driver: BmcDriver;
  interfaces: BmcInterfaces;
  /** A boot MAC is needed even with inspection enabled (VirtualBMC: addresses are not unique). */
  needsMac: boolean;
  /** Boots an ISO preprovisioning image over virtual media; exempt from the provisioning capacity limit. */
  supportsVirtualMedia: boolean;
  supportsSecureBoot: boolean;
  supportsOutOfBandInspect: boolean;
  needsProvisioningNetwork: boolean;
  /** Ironic `driver_info` for this BMC. Holds the password: never log or print the result. */
  driverInfo: (credentials: BmcCredentials, opts?: DriverInfoOptions) => DriverInfo;
};

export type BmcTypeRow = {
  driver: BmcDriver;
  interfaces: BmcInterfaces;
  needsMac: boolean;
  supportsVirtualMedia: boolean;
  supportsSecureBoot: boolean;
  needsProvisioningNetwork: boolean;
  /** Whether `<type>+http` and `<type>+https` are accepted. */
  acceptsTransport: boolean;
  driverInfo: 'ipmi' | 'redfish';
};

const IPMI_ROW: BmcTypeRow = {
  driver: 'ipmi',
  interfaces: { boot: 'ipxe', raid: 'no-raid', inspect: 'agent' },
  needsMac: false,
  supportsVirtualMedia: false,
  supportsSecureBoot: false,
  needsProvisioningNetwork: true,
  acceptsTransport: false,
  driverInfo: 'ipmi',
};

const REDFISH_IPXE: BmcTypeRow = {
  driver: 'redfish',
  interfaces: { boot: 'ipxe', raid: 'redfish', inspect: 'redfish', firmware: 'redfish' },
  needsMac: false,
  supportsVirtualMedia: false,
  supportsSecureBoot: true,
  needsProvisioningNetwork: true,
  acceptsTransport: true,
  driverInfo: 'redfish',
};

// The idrac hardware type defaults to WSMAN interfaces; every one of them is pinned to Redfish.
const IDRAC_INTERFACES = {
  bios: 'idrac-redfish', management: 'idrac-redfish', power: 'idrac-redfish',
  raid: 'idrac-redfish', vendor: 'idrac-redfish', inspect: 'redfish', firmware: 'redfish',
};

const REDFISH_VMEDIA: BmcTypeRow = {
  ...REDFISH_IPXE,
  interfaces: { ...REDFISH_IPXE.interfaces, boot: 'redfish-virtual-media' },
  supportsVirtualMedia: true,
  needsProvisioningNetwork: false,
};

export const BMC_TYPE_TABLE: Readonly<Record<BmcType, BmcTypeRow>> = {
  ipmi: IPMI_ROW,
  // VirtualBMC addresses are shared by many VMs and the VM cannot report its own, so the MAC can
  // never be discovered.
  libvirt: { ...IPMI_ROW, needsMac: true },
  redfish: REDFISH_IPXE,
  'ilo5-redfish': REDFISH_IPXE,
  'idrac-redfish': { ...REDFISH_IPXE, driver: 'idrac', interfaces: { boot: 'ipxe', ...IDRAC_INTERFACES } },
  'redfish-virtualmedia': REDFISH_VMEDIA,
  'ilo5-virtualmedia': REDFISH_VMEDIA,
  'idrac-virtualmedia': {
    ...REDFISH_VMEDIA,
    driver: 'idrac',
    interfaces: { boot: 'idrac-redfish-virtual-media', ...IDRAC_INTERFACES },
  },
  'redfish-uefihttp': { ...REDFISH_VMEDIA, interfaces: { ...REDFISH_VMEDIA.interfaces, boot: 'redfish-https' } },
};

export function isBmcType(value: string): value is BmcType {
  return (BMC_TYPES as readonly string[]).includes(value);
}
