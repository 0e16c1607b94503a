import { cidrContains, parseCidr } from '../../api/index.ts';
import type { ApiServerInterface } from '../../api/index.ts';
import type { ControlPlaneMember } from './dns-plan.ts';
import type { MachineNic } from './types.ts';

// spec.apiServerInterface: which NIC of a control-plane machine gives the address published in
// the API record (CAPMAAS #385; #386 chose by name, #388 by tag; a subnet, by CIDR or MAAS name,
// is the third way the issue asks for). Every field given must match; the first matching NIC in
// MAAS's order wins, and its first address (in the subnet, when one is named).

function inSubnet(a: MachineNic['addresses'][number], subnet: string): boolean {
  const cidr = parseCidr(subnet);
  if (cidr) return a.subnetCidr === subnet || cidrContains(cidr, a.ip);
  return a.subnetName === subnet;
}

/** The address to publish, or null when no NIC matches. */
export function chosenAddress(nics: readonly MachineNic[], sel: ApiServerInterface): string | null {
  for (const nic of nics) {
    if (sel.name !== undefined && nic.name !== sel.name) continue;
    if (sel.tag !== undefined && !nic.tags.includes(sel.tag)) continue;
    const addresses = sel.subnet !== undefined ? nic.addresses.filter((a) => inSubnet(a, sel.subnet ?? '')) : nic.addresses;
    const first = addresses[0];
    if (first) return first.ip;
  }
  return null;
}

/** "name eno2, tag api" */
export function describeChoice(sel: ApiServerInterface): string {
  return [sel.name !== undefined ? `name ${sel.name}` : null, sel.subnet !== undefined ? `subnet ${sel.subnet}` : null, sel.tag !== undefined ? `tag ${sel.tag}` : null]
    .filter((p): p is string => p !== null).join(', ');
}

/** Why a machine's address is missing from the record, naming what it has. */
export function noMatchMessage(member: ControlPlaneMember, nics: readonly MachineNic[], sel: ApiServerInterface): string {
  const has = nics.map((n) => `${n.name} (${n.addresses.map((a) => a.ip).join(', ') || 'no address'}${n.tags.length ? `; tags ${n.tags.join(', ')}` : ''})`).join(', ');
  return `no interface of machine ${member.name ?? member.key}${member.systemId ? ` (${member.systemId})` : ''} matches ${describeChoice(sel)}; it has ${has || 'no interfaces'}`;
}

/** The key the NICs of a member are kept under: a redeployed machine (new addresses) is read again. */
export function nicsKeyOf(member: ControlPlaneMember): string | null {
  return member.systemId ? `${member.systemId}|${member.ips.join(',')}` : null;
}
