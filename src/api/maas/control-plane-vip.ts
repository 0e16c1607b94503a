import { z } from 'zod';
import { cidrContains, ipVersion, parseCidr } from './ip-cidr.ts';

// Two choices a MaasCluster makes about its API endpoint, beyond CAPMAAS (issue 32):
// - controlPlaneVIP: the endpoint is a virtual IP MAAS reserves, announced by kube-vip on the
//   control-plane machines (CAPMAAS #86), instead of the DNS round-robin record;
// - apiServerInterface: with the DNS record, which interface of each control-plane machine gives
//   the address published in it (CAPMAAS #385, PRs #386 by name and #388 by tag; here also by subnet).

// A Linux interface name: at most 15 bytes, no slash, no whitespace (dev_valid_name).
const INTERFACE_NAME = /^[^\s/:]{1,15}$/;

export const ControlPlaneVip = z.object({
  subnet: z.string().min(1).describe('CIDR of the MAAS subnet the VIP is reserved in, e.g. 10.10.1.0/24. The control-plane machines need an interface on it: kube-vip announces the VIP by ARP (NDP for IPv6), which reaches one L2 segment only.'),
  address: z.string().optional().describe('The VIP to reserve, inside subnet; MAAS picks a free address of the subnet when unset.'),
  interface: z.string().optional().describe('Interface kube-vip announces the VIP on, e.g. eth0; unset, kube-vip takes the interface of the default route.'),
}).superRefine((vip, ctx) => {
  const cidr = parseCidr(vip.subnet);
  if (!cidr) ctx.addIssue({ code: 'custom', path: ['subnet'], message: `Invalid value: ${JSON.stringify(vip.subnet)}: must be a CIDR, e.g. 10.10.1.0/24 or fd00:10::/64` });
  if (vip.address !== undefined) {
    if (ipVersion(vip.address) === 0) ctx.addIssue({ code: 'custom', path: ['address'], message: `Invalid value: ${JSON.stringify(vip.address)}: must be an IPv4 or IPv6 address` });
    else if (cidr && !cidrContains(cidr, vip.address)) ctx.addIssue({ code: 'custom', path: ['address'], message: `Invalid value: ${JSON.stringify(vip.address)}: must be inside subnet ${vip.subnet}` });
  }
  if (vip.interface !== undefined && !INTERFACE_NAME.test(vip.interface)) {
    ctx.addIssue({ code: 'custom', path: ['interface'], message: `Invalid value: ${JSON.stringify(vip.interface)}: must be an interface name of at most 15 characters, without '/', ':' or spaces` });
  }
}).describe('Use a virtual IP, reserved in MAAS and held by kube-vip on the control-plane machines, as the API endpoint instead of a DNS record. Immutable once reserved.');
export type ControlPlaneVip = z.infer<typeof ControlPlaneVip>;

export const ApiServerInterface = z.object({
  name: z.string().min(1).optional().describe('Interface name, e.g. eno2.'),
  subnet: z.string().min(1).optional().describe('MAAS subnet an address of the interface is on: its CIDR (e.g. 10.20.0.0/24) or its name.'),
  tag: z.string().min(1).optional().describe('A MAAS tag the interface carries.'),
}).superRefine((sel, ctx) => {
  if (sel.name === undefined && sel.subnet === undefined && sel.tag === undefined) {
    ctx.addIssue({ code: 'custom', path: [], message: 'Required value: name, subnet or tag' });
  }
}).describe('Which interface of each control-plane machine gives the address published in the API server\'s DNS record; every field given must match. Unset: the machine\'s first address, as CAPMAAS.');
export type ApiServerInterface = z.infer<typeof ApiServerInterface>;

export const ControlPlaneVipStatus = z.object({
  address: z.string().describe('The VIP MAAS reserved.'),
  subnet: z.string().describe('The subnet it was reserved in.'),
}).describe('The control-plane VIP as reserved in MAAS; released when the cluster is deleted.');
export type ControlPlaneVipStatus = z.infer<typeof ControlPlaneVipStatus>;
