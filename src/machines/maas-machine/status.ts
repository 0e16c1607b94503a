import type { MaasView } from './types.ts';

export interface MaasMachineStatus {
  ready: boolean;
  initialization?: { provisioned?: boolean };
  machineState?: string;
  machinePowered?: boolean;
  hostname?: string;
  addresses?: Array<{ type: string; address: string }>;
  conditions?: Array<{ type: string; status: 'True' | 'False' | 'Unknown'; reason?: string; message?: string; lastTransitionTime?: string }>;
  failureReason?: string;
  failureMessage?: string;
}

// CAPMAAS: the fqdn as ExternalDNS and InternalDNS, then every IP as ExternalIP and InternalIP.
export function addressesOf(view: MaasView): Array<{ type: string; address: string }> {
  return [
    { type: 'ExternalDNS', address: view.fqdn },
    { type: 'InternalDNS', address: view.fqdn },
    ...view.ipAddresses.flatMap((ip) => [{ type: 'ExternalIP', address: ip }, { type: 'InternalIP', address: ip }]),
  ];
}

// Sets MachineDeployed and the Ready summary; keeps lastTransitionTime when the status holds.
export function withDeployed(status: MaasMachineStatus, cond: { status: 'True' | 'False' | 'Unknown'; reason: string; message?: string }, now: number): MaasMachineStatus {
  const stamp = new Date(now).toISOString();
  const set = (list: MaasMachineStatus['conditions'], type: string): NonNullable<MaasMachineStatus['conditions']> => {
    const others = (list ?? []).filter((c) => c.type !== type);
    const prev = (list ?? []).find((c) => c.type === type);
    const lastTransitionTime = prev && prev.status === cond.status ? prev.lastTransitionTime ?? stamp : stamp;
    return [...others, { type, status: cond.status, reason: cond.reason, ...(cond.message ? { message: cond.message } : {}), lastTransitionTime }];
  };
  return { ...status, conditions: set(set(status.conditions, 'MachineDeployed'), 'Ready') };
}
