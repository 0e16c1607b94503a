// The Ironic calls an enrollment makes per host (issue 30, enroll): once registration has read the
// node manageable, the calls that follow at once (prepare with nothing to prepare, the firmware
// read, the first power read) act on that answer instead of reading the node again; a call that
// changed the node leaves nothing to reuse. Serial: the counts are the one client's.
import test from 'ava';
import type { IronicClient } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { Fence, HostData } from '../../src/ports/index.ts';
import { useIronicProvisioner } from '../support/ironic.ts';

// A short poll long enough that the calls below, one after the other, fall within it on a loaded machine.
const it = useIronicProvisioner(test, { shortMs: 10_000, longMs: 10_000 });

const FENCE: Fence = { holder: 'node-a', shard: 1, epoch: 4 };

function hostData(name: string, provisionerId = '', fence: Fence | undefined = FENCE): HostData {
  return {
    key: `lab/${name}`, namespace: 'lab', name, uid: `uid-${name}`, provisionerId,
    spec: { online: false, bmc: { address: `redfish://192.168.111.1:8000/redfish/v1/Systems/${name}`, credentialsName: 'bmc' }, bootMACAddress: `52:54:00:ee:00:${String(name.length).padStart(2, '0')}`, inspectionMode: 'disabled' } as HostData['spec'],
    credentials: { username: 'admin', password: 'enroll-calls-password' },
    ...(fence ? { fence } : {}),
  };
}

async function registered(name: string, fence: Fence | undefined): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const r = await it.provisioner.register(hostData(name, '', fence), { op: 'register', restartOnFailure: false, credentialsChanged: false });
    if (r.kind === 'done' && r.provisionerId) return r.provisionerId;
    if (r.kind === 'failed') throw new Error(`register failed: ${r.message}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('register did not finish');
}

const nodeReads = (): number => it.client.stats.byRoute['GET /v1/nodes/{node}'] ?? 0;

for (const fenced of [true, false]) {
  test.serial(`ironic enroll calls - ${fenced ? 'with' : 'without'} an owner fence, prepare, the firmware read and the first power read after registration read the node no more`, async (t) => {
    const name = fenced ? 'enroll-a' : 'enroll-bb';
    const fence = fenced ? FENCE : undefined;
    const id = await registered(name, fence);
    const host = hostData(name, id, fence);
    const before = nodeReads();
    const prepared = await it.provisioner.prepare(host, { op: 'prepare', restartOnFailure: false, raid: { target: null, actual: null } });
    t.is(prepared.kind, 'done');
    const readFirmware = it.provisioner.firmware;
    if (!readFirmware) return t.fail('the Ironic provisioner reads firmware');
    const firmware = await readFirmware(host, { op: 'firmware' });
    t.is(firmware.kind, 'done', JSON.stringify(firmware));
    const power = await it.provisioner.hardwareState(host, { op: 'hardwareState' });
    t.is(power.kind, 'done');
    // Before: one GET of the node for each of the three.
    t.is(nodeReads() - before, 0);
  });
}

test.serial('ironic enroll calls - a call that changed the node leaves nothing to reuse: the next one reads it', async (t) => {
  const id = await registered('enroll-ccc', FENCE);
  const host = hostData('enroll-ccc', id);
  t.is((await it.provisioner.powerOn(host, { op: 'powerOn', force: false })).kind !== 'failed', true);
  const before = nodeReads();
  await it.provisioner.hardwareState(host, { op: 'hardwareState' });
  t.is(nodeReads() - before, 1);
});

test.serial('ironic enroll calls - a reused node is the same owner\'s: a new lease epoch reads the node again', async (t) => {
  const id = await registered('enroll-dddd', FENCE);
  const before = nodeReads();
  await it.provisioner.hardwareState(hostData('enroll-dddd', id, { ...FENCE, epoch: FENCE.epoch + 1 }), { op: 'hardwareState' });
  t.is(nodeReads() - before, 1);
});

test.serial('ironic enroll calls - a manage refused because an earlier one landed (the node left enroll) is no registration error', async (t) => {
  // A loaded Ironic: the manage is taken, and the one sent again after it is refused (HTTP 400,
  // the node is verifying or manageable already), as the bench at load 30 met it.
  const late = new Proxy(it.client, {
    get: (target, prop, receiver) => prop === 'setProvisionState'
      ? async (ref: string, to: Parameters<IronicClient['setProvisionState']>[1]) => {
        await target.setProvisionState(ref, to);
        await target.setProvisionState(ref, to);
      }
      : Reflect.get(target, prop, receiver),
  });
  const provisioner = createIronicProvisioner({ client: late, driverOverride: { hardwareType: 'fake-hardware' }, polls: { shortMs: 50, longMs: 50 }, imageCheck: { enabled: false } });
  const host = hostData('enroll-eeeee');
  const first = await provisioner.register(host, { op: 'register', restartOnFailure: false, credentialsChanged: false });
  t.is(first.kind, 'continuing', JSON.stringify(first));
  t.not((await it.client.getNode('lab~enroll-eeeee'))?.provision_state, 'enroll');
});

test.serial('ironic enroll calls - a manage refused while the node is still in enroll stays a registration error', async (t) => {
  const refused = new Proxy(it.client, {
    get: (target, prop, receiver) => prop === 'setProvisionState'
      ? async (ref: string) => target.setProvisionState(ref, 'provide')
      : Reflect.get(target, prop, receiver),
  });
  const provisioner = createIronicProvisioner({ client: refused, driverOverride: { hardwareType: 'fake-hardware' }, polls: { shortMs: 50, longMs: 50 }, imageCheck: { enabled: false } });
  const result = await provisioner.register(hostData('enroll-ffffff'), { op: 'register', restartOnFailure: false, credentialsChanged: false });
  t.is(result.kind, 'failed', JSON.stringify(result));
});
