// Issue 30: a node create whose answer was lost (the client timed out on an overloaded Ironic)
// leaves the host's credentials "not yet tried"; its next register finds the node this process
// created with those very credentials and writes no driver_info PATCH (at load 29 each such PATCH
// took 80 s, past the timeout, and was sent again on every retry). Changed ones still are.
import test from 'ava';
import { createIronicClient } from '../../src/adapters/ironic/client/index.ts';
import type { IronicClient } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { HostData } from '../../src/ports/index.ts';
import { startIronicApiServer } from '../support/ironic-api/index.ts';
import { startRecorder } from '../support/ironic-recorder.ts';

const host: HostData = {
  key: 'lab/lost', namespace: 'lab', name: 'lost', uid: 'uid-lost', provisionerId: '',
  spec: { online: false, bmc: { address: 'redfish://192.168.111.1:8000/redfish/v1/Systems/lost', credentialsName: 'bmc' }, bootMACAddress: '52:54:00:aa:ee:01' } as HostData['spec'],
  credentials: { username: 'admin', password: 'lost-answer-password' },
};

test('ironic register - a create whose answer was lost is not followed by a PATCH of the same credentials; new credentials are', async (t) => {
  const s = await startIronicApiServer({ maxVersion: '1.82', phaseDelayMs: 2 });
  const recorder = await startRecorder(s.url);
  const client = createIronicClient({ endpoint: recorder.url });
  t.teardown(async () => {
    client.close();
    await recorder.stop();
    await s.close();
  });
  // The create reaches Ironic; its answer does not reach us.
  const losing = new Proxy(client, {
    get: (target, prop, receiver) => (prop === 'createNode'
      ? async (...args: Parameters<IronicClient['createNode']>) => {
        await target.createNode(...args);
        throw new Error('Ironic did not answer POST /v1/nodes within 30 s');
      }
      : Reflect.get(target, prop, receiver)),
  });
  const p = createIronicProvisioner({ client: losing, driverOverride: { hardwareType: 'fake-hardware' }, polls: { shortMs: 5, longMs: 10 }, imageCheck: { enabled: false } });
  const first = await p.register(host, { op: 'register', restartOnFailure: false, credentialsChanged: true });
  t.is(first.kind, 'transient');
  const patches = (): number => recorder.calls.filter((c) => c.route === 'PATCH /v1/nodes/{node}').length;
  // The host tried no credentials yet: its next register says they changed, as it would.
  let next = await p.register(host, { op: 'register', restartOnFailure: false, credentialsChanged: true });
  for (let i = 0; next.kind === 'continuing' && i < 200; i++) {
    await new Promise((r) => setTimeout(r, 5));
    next = await p.register(host, { op: 'register', restartOnFailure: false, credentialsChanged: false });
  }
  t.is(next.kind, 'done');
  t.is(patches(), 0, 'no PATCH of the driver_info the node was created with');
  // Once registered, credentials that really changed are written.
  const rotated = { ...host, credentials: { username: 'admin', password: 'rotated-password-2' } };
  await p.register(rotated, { op: 'register', restartOnFailure: false, credentialsChanged: true });
  t.is(patches(), 1);
});
