import test from 'ava';
import type { IronicClient, IronicNode } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { HostData, Provisioner } from '../../src/ports/index.ts';

// Ironic states a step did not expect: each either moves on the way Ironic's state machine
// allows (ironic/common/states.py) or says why it cannot, never waits without end and without a word.

function host(): HostData {
  return {
    key: 'ns/h1', namespace: 'ns', name: 'h1', uid: 'u1', provisionerId: 'node-1', credentials: { username: 'admin', password: 'pw' },
    spec: { online: true, bootMode: 'UEFI', automatedCleaningMode: 'metadata', bmc: { address: 'ipmi://10.0.0.1', credentialsName: 'c' }, bootMACAddress: '52:54:00:00:00:01', image: { url: 'http://images/x.qcow2', checksum: 'a'.repeat(64), checksumType: 'sha256' } },
  };
}

function withNode(node: Partial<IronicNode>): { p: Provisioner; writes: string[] } {
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
  } as unknown as IronicClient;
  return { p: createIronicProvisioner({ client, imageCheck: { enabled: false }, polls: { shortMs: 3, longMs: 10 } }), writes };
}

const provisionArgs = { op: 'provision', image: undefined, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints: undefined } as const;

test('ironic states - provisioning that finds the automated clean failed fails with Ironic\'s reason', async (t) => {
  // provide → cleaning → clean failed (target available): Ironic waits for manage; so would we, for ever.
  const { p, writes } = withNode({ provision_state: 'clean failed', target_provision_state: 'available', maintenance: true, fault: 'clean failure', last_error: 'Failed to erase devices' });
  t.deepEqual(await p.provision(host(), provisionArgs), { kind: 'failed', message: 'cleaning failed: Failed to erase devices (Ironic fault: clean failure)' });
  t.deepEqual(writes, [], 'the retry (deprovisioning, restartOnFailure) is what moves it');
});

for (const state of ['rescue', 'rescue wait', 'rescue failed', 'unrescue failed']) {
  test(`ironic states - deprovisioning a node in ${state} undeploys it (states.py: ${state} --delete--> deleting)`, async (t) => {
    const { p, writes } = withNode({ provision_state: state, instance_uuid: 'u1' });
    t.deepEqual(await p.deprovision(host(), { op: 'deprovision', restartOnFailure: false, automatedCleaning: true }), { kind: 'continuing', afterMs: 3 });
    t.deepEqual(writes, ['patchNode [[{"op":"replace","path":"/automated_clean","value":true}]]', 'setProvisionState ["deleted"]']);
  });
}

test('ironic states - deprovisioning a node whose adoption failed takes it to manageable, then cleans it', async (t) => {
  const { p, writes } = withNode({ provision_state: 'adopt failed', target_provision_state: 'active', last_error: 'no image' });
  t.deepEqual(await p.deprovision(host(), { op: 'deprovision', restartOnFailure: false, automatedCleaning: true }), { kind: 'continuing', afterMs: 3 });
  t.deepEqual(writes, ['setProvisionState ["manage"]']);
});

test('ironic states - removing a node while it unrescues waits, as for any conductor flow', async (t) => {
  const { p, writes } = withNode({ provision_state: 'unrescuing', target_provision_state: 'active', reservation: 'conductor-1' });
  t.deepEqual(await p.delete(host(), { op: 'delete' }), { kind: 'continuing', afterMs: 3 });
  t.deepEqual(writes, []);
});
