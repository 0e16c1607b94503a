// A node in maintenance that Ironic did not put there (no fault): set by hand, or left by a detach
// that set it and then did not get to delete the node. Ironic refuses provision state changes in
// maintenance (21.4: 400 "The provisioning operation can't be performed on node ... because it's
// in maintenance mode."). BMO takes such a node out of maintenance before a provision state change
// (tryChangeNodeProvisionState, pkg/provisioner/ironic/ironic.go) and in Adopt on an active node
// (any reason, when the node has no fault); a node with a fault is left for Ironic to clear.
import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { HostData } from '../../src/ports/index.ts';
import { useIronicProvisioner } from '../support/ironic.ts';

const it = useIronicProvisioner(test);

function hostData(name: string, uuid: string): HostData {
  return {
    key: `lab/${name}`, namespace: 'lab', name, uid: randomUUID(), provisionerId: uuid,
    spec: { online: true, bootMode: 'UEFI', automatedCleaningMode: 'disabled', bmc: { address: `redfish://192.168.111.1:8000/redfish/v1/Systems/${name}`, credentialsName: 'bmc' } } as HostData['spec'],
    credentials: { username: 'admin', password: `${name}-maintenance-password` },
  };
}

async function nodeIn(name: string, state: 'available' | 'active'): Promise<string> {
  const node = await it.client.createNode({ name: `lab~${name}`, driver: 'fake-hardware' } as Parameters<typeof it.client.createNode>[0]);
  const reach = async (target: 'manage' | 'provide' | 'active', settled: string): Promise<void> => {
    await it.client.setProvisionState(node.uuid, target);
    for (let i = 0; i < 100; i++) {
      const n = await it.client.getNode(node.uuid);
      if (n?.provision_state === settled && !n.target_provision_state) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`node ${name} did not reach ${settled}`);
  };
  await reach('manage', 'manageable');
  await reach('provide', 'available');
  if (state === 'active') await reach('active', 'active');
  return node.uuid;
}

test('ironic maintenance - a provisioned host whose active node a detach left in maintenance is taken out of it by adopt', async (t) => {
  const uuid = await nodeIn('left', 'active');
  await it.client.setMaintenance(uuid, 'removed by metalfleet');
  const r = await it.provisioner.adopt(hostData('left', uuid), { op: 'adopt', restartOnFailure: false });
  t.like(r, { kind: 'done' });
  t.false((await it.client.getNode(uuid))?.maintenance, 'Ironic syncs power and takes provision requests again');
});

test('ironic maintenance - a host deployed onto a node set to maintenance by hand leaves maintenance first and deploys', async (t) => {
  const uuid = await nodeIn('by-hand', 'available');
  await it.client.setMaintenance(uuid, 'ops: checking the BMC');
  const host = hostData('by-hand', uuid);
  let r = await it.provisioner.provision(host, { op: 'provision', image: undefined, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints: undefined } as never);
  for (let i = 0; r.kind === 'continuing' && i < 100; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    r = await it.provisioner.provision(host, { op: 'provision', image: undefined, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints: undefined } as never);
  }
  t.like(r, { kind: 'done' }, r.kind === 'failed' ? r.message : r.kind);
  const node = await it.client.getNode(uuid);
  t.is(node?.provision_state, 'active');
  t.false(node?.maintenance);
});
