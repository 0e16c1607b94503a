import type { MachineAddress, MaasMachineStatus } from '../../api/index.ts';
import type { MaasView } from './types.ts';

export type { MaasMachineStatus };

// CAPMAAS: the fqdn as ExternalDNS and InternalDNS, then every IP as ExternalIP and InternalIP.
export function addressesOf(view: MaasView): MachineAddress[] {
  return [
    { type: 'ExternalDNS', address: view.fqdn },
    { type: 'InternalDNS', address: view.fqdn },
    ...view.ipAddresses.flatMap((ip): MachineAddress[] => [{ type: 'ExternalIP', address: ip }, { type: 'InternalIP', address: ip }]),
  ];
}

/** The machine's addresses the cluster publishes in DNS: its ExternalIPs, from status or MAAS. */
export function externalIps(status: MaasMachineStatus, view: MaasView | null): string[] {
  const fromStatus = (status.addresses ?? []).filter((a) => a.type === 'ExternalIP').map((a) => a.address);
  return [...new Set([...fromStatus, ...(view?.ipAddresses ?? [])])];
}
