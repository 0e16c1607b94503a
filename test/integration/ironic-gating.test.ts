// Feature gating against a real Ironic 21.4 (API 1.82): a redfish:// host registers with the
// real redfish driver because the firmware interface metalfleet picks by default (1.86) is left
// out, and a host asking for spec.disablePowerOff (1.95) fails with a message that says so,
// with nothing written to Ironic.
import test from 'ava';
import { createIronicClient } from '../../src/adapters/ironic/client/index.ts';
import type { IronicClient } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { HostData, Provisioner } from '../../src/ports/index.ts';
import { startIronic } from '../support/ironic.ts';
import type { IronicServer } from '../support/ironic.ts';
import { startRecorder } from '../support/ironic-recorder.ts';
import type { Recorder } from '../support/ironic-recorder.ts';

let ironic: IronicServer;
let rec: Recorder;
let client: IronicClient;
let real: Provisioner;
let fake: Provisioner;

test.before(async () => {
  ironic = await startIronic();
  rec = await startRecorder(ironic.url);
  client = createIronicClient({ endpoint: rec.url, timeoutMs: 10_000 });
  real = createIronicProvisioner({ client, polls: { shortMs: 50, longMs: 100 }, imageCheck: { enabled: false } });
  fake = createIronicProvisioner({ client, driverOverride: { hardwareType: 'fake-hardware' }, polls: { shortMs: 50, longMs: 100 }, imageCheck: { enabled: false } });
});

test.after.always(async () => {
  client?.close();
  await rec?.stop();
  await ironic?.stop();
});

function hostData(name: string, extra: Partial<HostData['spec']> = {}): HostData {
  return {
    key: `lab/${name}`, namespace: 'lab', name, uid: `uid-${name}`, provisionerId: '',
    // Nothing listens at this BMC: only the node's creation is looked at, not its verification.
    spec: { online: true, bootMode: 'UEFI', bmc: { address: `redfish://127.0.0.1:9/redfish/v1/Systems/${name}`, credentialsName: 'bmc' }, bootMACAddress: `52:54:00:ab:cd:${name === 'g1' ? '01' : '02'}`, ...extra } as HostData['spec'],
    credentials: { username: 'admin', password: 'gating-password-never-logged' },
  };
}

const writes = (): string[] => rec.calls.filter((c) => c.method !== 'GET').map((c) => `${c.method} ${c.route}`);

test.serial('ironic gating - a redfish:// host registers on Ironic 1.82: the default firmware interface is left out', async (t) => {
  rec.clear();
  const r = await real.register(hostData('g1'), { op: 'register', restartOnFailure: false, credentialsChanged: false });
  t.not(r.kind, 'failed', r.kind === 'failed' ? r.message : '');
  const create = rec.calls.find((c) => c.method === 'POST' && c.route === 'POST /v1/nodes');
  t.is(create?.status, 201);
  const body = create?.body as Record<string, unknown>;
  t.is(body['driver'], 'redfish');
  t.is(body['boot_interface'], 'ipxe');
  t.is(body['raid_interface'], 'redfish');
  t.false('firmware_interface' in body, 'firmware_interface needs 1.86');
  t.false('inspect_interface' in body, 'inspect_interface "agent" needs 1.84');
  const node = await client.getNode('lab~g1');
  t.is(node?.driver, 'redfish');
  t.is(node?.raid_interface, 'redfish');
});

test.serial('ironic gating - spec.disablePowerOff on Ironic 1.82 fails registration with the versions, nothing written', async (t) => {
  rec.clear();
  for (const p of [real, fake]) {
    const r = await p.register(hostData('g2', { disablePowerOff: true }), { op: 'register', restartOnFailure: false, credentialsChanged: false });
    t.deepEqual(r, { kind: 'failed', message: 'spec.disablePowerOff needs Ironic API 1.95 or later; this Ironic offers up to 1.82', retryAfterMs: null });
  }
  t.deepEqual(writes(), []);
  t.is(await client.getNode('lab~g2'), null);
});

test.serial('ironic gating - the client itself refuses disable_power_off on 1.82 before sending', async (t) => {
  rec.clear();
  await t.throwsAsync(client.createNode({ name: 'lab~g3', driver: 'fake-hardware', disable_power_off: true }), { message: /^POST \/v1\/nodes: node field disable_power_off needs Ironic API 1\.95 or later; this Ironic offers up to 1\.82$/ });
  t.deepEqual(writes(), []);
});
