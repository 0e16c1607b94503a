import test from 'ava';
import { createIronicClient } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { HostData } from '../../src/ports/index.ts';
import { startIronicApiServer } from '../support/ironic-api/index.ts';
import { untilDone } from '../support/provisioner-steps.ts';

// metalfleet's Ironic provisioner, unchanged, drives a host through its whole life on the test
// server at 1.87, as it does on the real Ironic 21.4 (test/support/ironic.ts).

const host: HostData = {
  key: 'lab/p1', namespace: 'lab', name: 'p1', uid: 'uid-p1', provisionerId: '',
  spec: {
    online: true,
    bmc: { address: 'redfish://192.168.111.1:8000/redfish/v1/Systems/p1', credentialsName: 'bmc' },
    bootMACAddress: '52:54:00:aa:cc:01',
    image: { url: 'http://images.example/os.qcow2', checksum: 'http://images.example/os.qcow2.sha256sum' },
  } as HostData['spec'],
  credentials: { username: 'admin', password: 'provisioner-test-password' },
};

test('ironic-api provisioner - register, inspect, provision and deprovision a host on the server at 1.87', async (t) => {
  const s = await startIronicApiServer({ maxVersion: '1.87', phaseDelayMs: 2 });
  const client = createIronicClient({ endpoint: s.url });
  t.teardown(async () => {
    client.close();
    await s.close();
  });
  const p = createIronicProvisioner({ client, driverOverride: { hardwareType: 'fake-hardware' }, polls: { shortMs: 10, longMs: 20 }, imageCheck: { enabled: false } });

  const registered = await untilDone(p, { op: 'register', restartOnFailure: false, credentialsChanged: false }, host);
  const id = registered.provisionerId ?? '';
  t.regex(id, /^[0-9a-f-]{36}$/);
  const h = { ...host, provisionerId: id };
  t.is(s.node(id)?.provisionState, 'manageable');
  t.is(s.node(id)?.fields.driver, 'fake-hardware');

  await untilDone(p, { op: 'inspect', restartOnFailure: false, refresh: false }, h);
  t.is(s.node(id)?.provisionState, 'manageable');
  t.truthy(s.node(id)?.fields.inspection_finished_at, 'the server ran an inspection');

  await untilDone(p, { op: 'provision', image: host.spec.image, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints: undefined }, h);
  t.is(s.node(id)?.provisionState, 'active');

  await untilDone(p, { op: 'deprovision', restartOnFailure: false, automatedCleaning: false }, h);
  t.is(s.node(id)?.provisionState, 'available');

  await untilDone(p, { op: 'delete' }, h);
  t.is(s.node(id), null);
  t.deepEqual(p.apiVersions?.(), [{ backend: `ironic:${new URL(s.url).host}`, version: '1.87' }]);
});
