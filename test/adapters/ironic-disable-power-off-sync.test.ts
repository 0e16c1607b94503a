import test from 'ava';
import type { IronicClient, IronicNode, JsonPatch } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { HostData } from '../../src/ports/index.ts';

// reference/bmo.md §5.2 Register: an existing node gets `disable_power_off` PATCHed whenever it
// differs from spec.disablePowerOff (Ironic 1.95+), not only when it is created. Metalfleet
// registers an existing node only when it must, so the setting is also brought over before the
// steps that may power the node off (power, provide, deploy, undeploy).
// Ironic's node.py refuses a power-off of a node with disable_power_off (PowerStateFailure), which
// the stub below does too. The Ironic API test server neither takes a PATCH of the field nor
// refuses such a power-off (reported), so the node is a stub here.

const MAC = '52:54:00:aa:ee:01';

function host(disablePowerOff: boolean, extra: Partial<HostData['spec']> = {}): HostData {
  return {
    key: 'lab/dp1', namespace: 'lab', name: 'dp1', uid: 'uid-dp1', provisionerId: 'node-1',
    spec: {
      online: true, bootMode: 'UEFI', automatedCleaningMode: 'disabled',
      bmc: { address: 'redfish://192.168.111.1:8000/redfish/v1/Systems/dp1', credentialsName: 'bmc' },
      bootMACAddress: MAC,
      ...(disablePowerOff ? { disablePowerOff: true } : {}),
      ...extra,
    } as HostData['spec'],
    credentials: { username: 'admin', password: 'disable-power-off-test-password' },
  };
}

/** An Ironic 1.96 node `node-1`; every write is listed in `writes` in the order sent. */
function ironic(node: Partial<IronicNode>) {
  const writes: string[] = [];
  const n = { uuid: 'node-1', name: 'lab~dp1', driver: 'redfish', provision_state: 'manageable', target_provision_state: null, power_state: 'power on', target_power_state: null, disable_power_off: false, ...node } as IronicNode;
  const v = { major: 1, minor: 96, text: '1.96' };
  const client = {
    endpoint: 'http://ironic.test',
    stats: { byRouteStatus: {} },
    version: v,
    negotiated: async () => ({ version: v, serverMax: v }),
    getNode: async () => ({ ...n }),
    listPorts: async () => [{ uuid: 'port-1', address: MAC, node_uuid: 'node-1' }],
    patchNode: async (_ref: string, ops: JsonPatch[]) => {
      for (const op of ops) {
        const value = 'value' in op ? op.value : undefined;
        writes.push(`${op.op} ${op.path}${typeof value === 'boolean' ? ` ${String(value)}` : ''}`);
        if (op.path === '/disable_power_off') Object.assign(n, { disable_power_off: value });
      }
      return { ...n };
    },
    setPowerState: async (_ref: string, target: string) => {
      if ((target === 'power off' || target === 'soft power off') && n.disable_power_off) throw new Error(`Failed to change power state to '${target}'`);
      writes.push(`power ${target}`);
    },
    setProvisionState: async (_ref: string, target: string) => {
      writes.push(`provision ${target}`);
    },
    validateNode: async () => ({ boot: { result: true }, deploy: { result: true } }),
  } as unknown as IronicClient;
  return { p: createIronicProvisioner({ client, imageCheck: { enabled: false }, polls: { shortMs: 3, longMs: 10 } }), writes, node: n };
}

test('ironic disablePowerOff - registering an existing node brings a changed spec.disablePowerOff to it', async (t) => {
  // The node's driver_info as registration wrote it, so that only the setting differs.
  const driver_info = { redfish_address: 'https://192.168.111.1:8000', redfish_system_id: '/redfish/v1/Systems/dp1' };
  const on = ironic({ disable_power_off: false, driver_info });
  t.is((await on.p.register(host(true), { op: 'register', restartOnFailure: false, credentialsChanged: false })).kind, 'done');
  t.deepEqual(on.writes, ['replace /disable_power_off true']);
  const off = ironic({ disable_power_off: true, driver_info });
  t.is((await off.p.register(host(false), { op: 'register', restartOnFailure: false, credentialsChanged: false })).kind, 'done');
  t.deepEqual(off.writes, ['replace /disable_power_off false']);
  // Unchanged: nothing is written.
  const same = ironic({ disable_power_off: true, driver_info });
  await same.p.register(host(true), { op: 'register', restartOnFailure: false, credentialsChanged: false });
  t.deepEqual(same.writes, []);
});

test('ironic disablePowerOff - a power-off after spec.disablePowerOff was removed clears it first, and Ironic takes the power-off', async (t) => {
  const { p, writes, node } = ironic({ disable_power_off: true, provision_state: 'active' });
  t.deepEqual(await p.powerOff(host(false), { op: 'powerOff', mode: 'hard', force: false }), { kind: 'continuing', afterMs: 3 });
  t.deepEqual(writes, ['replace /disable_power_off false', 'power power off']);
  t.false(node.disable_power_off);
});

test('ironic disablePowerOff - deploying and undeploying a host that asks for it since registration set it first', async (t) => {
  const image = { url: 'http://images.example/os.qcow2', checksum: 'http://images.example/os.qcow2.sha256sum' };
  const deploy = ironic({ disable_power_off: false, provision_state: 'available' });
  await deploy.p.provision(host(true, { image }), { op: 'provision', image, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints: undefined });
  t.is(deploy.writes[0], 'replace /disable_power_off true');
  t.is(deploy.writes.at(-1), 'provision active');
  const undeploy = ironic({ disable_power_off: false, provision_state: 'active' });
  await undeploy.p.deprovision(host(true), { op: 'deprovision', restartOnFailure: false, automatedCleaning: true });
  t.deepEqual(undeploy.writes, ['replace /disable_power_off true', 'replace /automated_clean true', 'provision deleted']);
});

test('ironic disablePowerOff - an Ironic before 1.95 (no such field on the node) is never sent it', async (t) => {
  const { p, writes } = ironic({ disable_power_off: undefined, provision_state: 'active' });
  await p.powerOff(host(false), { op: 'powerOff', mode: 'hard', force: false });
  t.deepEqual(writes, ['power power off']);
});
