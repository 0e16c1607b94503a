// A provisioner over a stub Ironic client that answers every read with one node and records the
// writes it is asked for: for tests of what the provisioner does in a given Ironic state.
import type { IronicClient, IronicNode } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { HostData, Provisioner } from '../../src/ports/index.ts';

export function stubHost(): HostData {
  return {
    key: 'ns/h1', namespace: 'ns', name: 'h1', uid: 'u1', provisionerId: 'node-1', credentials: { username: 'admin', password: 'pw' },
    spec: { online: true, bootMode: 'UEFI', automatedCleaningMode: 'metadata', bmc: { address: 'ipmi://10.0.0.1', credentialsName: 'c' }, bootMACAddress: '52:54:00:00:00:01', image: { url: 'http://images/x.qcow2', checksum: 'a'.repeat(64), checksumType: 'sha256' } },
  };
}

/** A provisioner on a client (API 1.82, Ironic 21.4's) whose node is `node`; its writes are listed in `writes`. */
export function provisionerOnNode(node: Partial<IronicNode>): { p: Provisioner; writes: string[] } {
  const writes: string[] = [];
  const full = { uuid: 'node-1', name: 'ns~h1', provision_state: 'available', driver: 'ipmi', ...node } as IronicNode;
  const write = (name: string) => async (...args: unknown[]) => {
    writes.push(`${name} ${JSON.stringify(args.slice(1))}`);
    return full;
  };
  const client = {
    endpoint: 'http://ironic.test',
    stats: { byRouteStatus: {} },
    version: { major: 1, minor: 82, text: '1.82' },
    negotiated: async () => ({ version: { major: 1, minor: 82, text: '1.82' }, serverMax: { major: 1, minor: 82, text: '1.82' } }),
    getNode: async () => full,
    validateNode: async () => ({}),
    setProvisionState: write('setProvisionState'),
    patchNode: write('patchNode'),
    setMaintenance: write('setMaintenance'),
    unsetMaintenance: write('unsetMaintenance'),
    deleteNode: write('deleteNode'),
    setTargetRaidConfig: write('setTargetRaidConfig'),
  } as unknown as IronicClient;
  return { p: createIronicProvisioner({ client, imageCheck: { enabled: false }, polls: { shortMs: 3, longMs: 10 } }), writes };
}

/** A provision with nothing but the boot mode: the arguments the state tests pass. */
export const provisionArgs = { op: 'provision', image: undefined, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints: undefined } as const;
