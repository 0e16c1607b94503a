import test from 'ava';
import { createIronicClient, IronicError } from '../../src/adapters/ironic/client/index.ts';
import type { IronicClient } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { OpResult } from '../../src/machines/bmh/index.ts';
import type { HostData, Provisioner } from '../../src/ports/index.ts';
import { startIronic } from '../support/ironic.ts';
import type { IronicServer } from '../support/ironic.ts';
import { ironicExpectations } from '../support/ironic-expect.ts';
import type { IronicExpectations } from '../support/ironic-expect.ts';
import { startRecorder } from '../support/ironic-recorder.ts';
import { waitUntil } from '../support/wait.ts';
import type { Recorder } from '../support/ironic-recorder.ts';

// BIOS settings and firmware against the installed, real Ironic with fake-hardware, whose `fake`
// BIOS interface stores what bios.apply_configuration is given. What differs between Debian 12's
// 21.4 (API 1.82: refusals) and Debian 13's 29.0 (1.96: firmware components, servicing) is
// decided by test/support/ironic-expect.ts from the negotiated version. A recording proxy shows
// what Ironic was sent; the tests run one at a time because they read (and clear) its record.

const it = {} as { ironic: IronicServer; recorder: Recorder; client: IronicClient; p: Provisioner; want: IronicExpectations };

test.before(async () => {
  it.ironic = await startIronic();
  it.recorder = await startRecorder(it.ironic.url);
  it.client = createIronicClient({ endpoint: it.recorder.url, timeoutMs: 10_000 });
  await it.client.connect();
  it.want = await ironicExpectations(it.client);
  it.p = createIronicProvisioner({ client: it.client, driverOverride: { hardwareType: 'fake-hardware' }, polls: { shortMs: 20, longMs: 50 }, imageCheck: { enabled: false } });
});

test.after.always(async () => {
  it.client?.close();
  await it.recorder?.stop();
  await it.ironic?.stop();
});

const macs = new Map<string, string>();
const macOf = (name: string): string => {
  if (!macs.has(name)) macs.set(name, `52:54:00:00:01:${(macs.size + 1).toString(16).padStart(2, '0')}`);
  return macs.get(name)!;
};
function host(name: string, provisionerId = ''): HostData {
  return {
    key: `lab/${name}`, namespace: 'lab', name, uid: `uid-${name}`, provisionerId, credentials: { username: 'admin', password: 'pw-not-for-logs' },
    spec: { online: true, bootMode: 'UEFI', automatedCleaningMode: 'disabled', bmc: { address: `ipmi://10.0.0.1/${name}`, credentialsName: 'bmc' }, bootMACAddress: macOf(name) },
  };
}

/** Calls `op` again while it answers continuing, as the host machine would; its last answer. */
async function settle(op: () => Promise<OpResult>, timeoutMs = 30_000): Promise<OpResult> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await op();
    if (r.kind !== 'continuing') return r;
    if (Date.now() > deadline) throw new Error(`still continuing after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, r.afterMs));
  }
}

async function registered(name: string): Promise<HostData> {
  const r = await settle(() => it.p.register(host(name), { op: 'register', restartOnFailure: false, credentialsChanged: false }));
  if (r.kind !== 'done' || !r.provisionerId) throw new Error(`register: ${JSON.stringify(r)}`);
  return host(name, r.provisionerId);
}

const noRaid = { target: null, actual: null };
/** The manual cleans `node` was asked for, as Ironic received them. */
const provisionStates = (node: string) => it.recorder.calls
  .filter((c) => c.route === 'PUT /v1/nodes/{node}/states/provision' && c.node === node && (c.body as { target?: string }).target === 'clean')
  .map((c) => c.body);

test.serial('ironic firmware - firmware read: settings, no schema without a registry, components from 1.86', async (t) => {
  const h = await registered('fw-read');
  const r = await it.p.firmware!(h, { op: 'firmware' });
  const components = it.want.fakeFirmwareComponents;
  t.deepEqual(r, { kind: 'done', firmware: { settings: {}, ...(components ? { components } : {}) } });
  // The registry fields were asked for (1.74); the components only where the API has them (1.86).
  const routes = it.recorder.calls.filter((c) => c.node === 'lab~fw-read').map((c) => c.path);
  t.true(routes.some((p) => /\/bios\?detail=True$/.test(p)));
  t.is(routes.some((p) => p.endsWith('/firmware')), it.want.firmwareComponents);
});

test.serial('ironic firmware - prepare with BIOS settings runs a manual clean with the bios step, then reads them back', async (t) => {
  const h = await registered('fw-prepare');
  const firmware = { settings: { ProcVirtualization: 'Enabled', BootMode: 'Uefi' }, updates: [] };
  const r = await settle(() => it.p.prepare(h, { op: 'prepare', restartOnFailure: false, raid: noRaid, firmware }));
  t.deepEqual(r, { kind: 'done' });
  t.deepEqual(provisionStates('lab~fw-prepare'), [{
    target: 'clean',
    clean_steps: [{ interface: 'bios', step: 'apply_configuration', args: { settings: [{ name: 'BootMode', value: 'Uefi' }, { name: 'ProcVirtualization', value: 'Enabled' }] } }],
  }]);
  const read = await it.p.firmware!(h, { op: 'firmware' });
  t.like(read, { kind: 'done', firmware: { settings: { ProcVirtualization: 'Enabled', BootMode: 'Uefi' } } });
  // Preparing again with one setting changed sends only that one.
  const again = await settle(() => it.p.prepare(h, { op: 'prepare', restartOnFailure: false, raid: noRaid, firmware: { settings: { ProcVirtualization: 'Disabled', BootMode: 'Uefi' }, updates: [] } }));
  t.deepEqual(again, { kind: 'done' });
  t.deepEqual(provisionStates('lab~fw-prepare')[1], {
    target: 'clean', clean_steps: [{ interface: 'bios', step: 'apply_configuration', args: { settings: [{ name: 'ProcVirtualization', value: 'Disabled' }] } }],
  });
  // Nothing differs: prepared with no clean at all.
  const before = provisionStates('lab~fw-prepare').length;
  t.deepEqual(await settle(() => it.p.prepare(h, { op: 'prepare', restartOnFailure: false, raid: noRaid, firmware: { settings: { ProcVirtualization: 'Disabled' }, updates: [] } })), { kind: 'done' });
  t.is(provisionStates('lab~fw-prepare').length, before);
});

test.serial('ironic firmware - a firmware update: a manual clean with firmware.update from 1.86, refused naming 1.86 before it with nothing sent', async (t) => {
  const h = await registered('fw-update');
  it.recorder.clear();
  const firmware = { settings: {}, updates: [{ component: 'bios', url: 'http://fw.lab/bios.bin' }] };
  if (!it.want.firmwareUpdate) {
    const r = await it.p.prepare(h, { op: 'prepare', restartOnFailure: false, raid: noRaid, firmware });
    t.deepEqual(r, { kind: 'failed', message: `a firmware update needs Ironic API 1.86 or later; this Ironic offers up to ${it.want.version}`, retryAfterMs: null });
    t.deepEqual(it.recorder.calls.filter((c) => c.nodeRef !== undefined).map((c) => c.route), []);
    return;
  }
  // fake-hardware's `fake` firmware interface takes firmware.update as a clean step and flashes
  // nothing (drivers/modules/fake.py FakeFirmware.update); no-firmware has no such step.
  const r = await settle(() => it.p.prepare(h, { op: 'prepare', restartOnFailure: false, raid: noRaid, firmware }));
  if (it.want.fakeFirmwareInterface) t.deepEqual(r, { kind: 'done' });
  else t.like(r, { kind: 'failed' });
  t.deepEqual(provisionStates('lab~fw-update'), [{ target: 'clean', clean_steps: [{ interface: 'firmware', step: 'update', args: { settings: [{ component: 'bios', url: 'http://fw.lab/bios.bin' }] } }] }]);
});

test.serial('ironic firmware - servicing: refused naming 1.87 before it with nothing sent; from 1.87 only an active node is serviced', async (t) => {
  const h = await registered('fw-service');
  it.recorder.clear();
  const r = await it.p.service!(h, { op: 'service', restartOnFailure: false, firmware: { settings: { ProcVirtualization: 'Enabled' }, updates: [] } });
  if (!it.want.servicing) {
    t.deepEqual(r, { kind: 'failed', message: `servicing needs Ironic API 1.87 or later; this Ironic offers up to ${it.want.version}`, retryAfterMs: null });
    t.deepEqual(it.recorder.calls.filter((c) => c.nodeRef !== undefined), [], 'not even read');
  } else {
    // Registered only (manageable): Ironic's state machine has no `service` from there
    // (common/states.py), so the provisioner waits for the host to be provisioned.
    t.like(r, { kind: 'transient' });
    t.regex((r as { message: string }).message, /not active or servicing/);
  }
  t.deepEqual(it.recorder.calls.filter((c) => c.nodeRef !== undefined && c.method !== 'GET'), []);
});

test.serial('ironic firmware - the client gates the firmware list and service verb by version and reads BIOS settings with their registry fields', async (t) => {
  const h = await registered('fw-client');
  t.deepEqual(await it.client.getBiosSettings(h.provisionerId, { registry: true }), []);
  if (it.want.firmwareComponents) {
    t.deepEqual(await it.client.getFirmwareComponents(h.provisionerId), it.want.fakeFirmwareComponents);
  } else {
    await t.throwsAsync(it.client.getFirmwareComponents(h.provisionerId), { message: new RegExp(`firmware components \\(GET /v1/nodes/\\{node\\}/firmware\\) needs Ironic API 1\\.86 or later; this Ironic offers up to ${it.want.version.replace('.', '\\.')}`) });
  }
  if (it.want.servicing) {
    // Sent, and refused by Ironic itself: no `service` from manageable (common/states.py).
    const refused = await t.throwsAsync(it.client.setProvisionState(h.provisionerId, 'service', { serviceSteps: [] }), { instanceOf: IronicError });
    t.not(refused?.code, 'unsupported');
    t.true((refused?.attempts ?? 0) > 0);
  } else {
    const refused = await t.throwsAsync(it.client.setProvisionState(h.provisionerId, 'service', { serviceSteps: [] }), { instanceOf: IronicError, message: /needs Ironic API 1\.87/ });
    // Typed: not retryable, and no request left (attempts 0).
    t.like(refused, { code: 'unsupported', retryable: false, attempts: 0, status: null });
  }
  if (!it.want.firmwareUpdate) {
    await t.throwsAsync(it.client.setProvisionState(h.provisionerId, 'clean', { cleanSteps: [{ interface: 'firmware', step: 'update', args: {} }] }), { message: /a firmware update step needs Ironic API 1\.86/ });
  }
});

/** `h`'s node deployed by fake-hardware (nothing is written anywhere): active. */
async function deployed(h: HostData): Promise<void> {
  const inState = (state: string) => async () => {
    const n = await it.client.getNode(h.provisionerId);
    return n?.provision_state === state && !n.target_provision_state;
  };
  await it.client.setProvisionState(h.provisionerId, 'provide');
  await waitUntil(inState('available'), 30_000, 'the node to be available');
  await it.client.setProvisionState(h.provisionerId, 'active');
  await waitUntil(inState('active'), 30_000, 'the node to be active', 100);
}

test.serial('ironic firmware - servicing an active host: refused naming 1.87 before it; from 1.87 sent as service steps, which fake-hardware\'s BIOS interface does not have', async (t) => {
  const h = await registered('fw-service-active');
  await deployed(h);
  it.recorder.clear();
  const firmware = { settings: { ProcVirtualization: 'Enabled' }, updates: [] };
  const r = await settle(() => it.p.service!(h, { op: 'service', restartOnFailure: false, firmware }));
  if (!it.want.servicing) {
    t.deepEqual(r, { kind: 'failed', message: `servicing needs Ironic API 1.87 or later; this Ironic offers up to ${it.want.version}`, retryAfterMs: null });
    t.deepEqual(it.recorder.calls.filter((c) => c.nodeRef !== undefined), [], 'not even read');
    t.is((await it.client.getNode(h.provisionerId))?.provision_state, 'active');
    return;
  }
  const sent = it.recorder.calls.filter((c) => c.route === 'PUT /v1/nodes/{node}/states/provision').map((c) => c.body);
  t.deepEqual(sent, [{ target: 'service', service_steps: [{ interface: 'bios', step: 'apply_configuration', args: { settings: [{ name: 'ProcVirtualization', value: 'Enabled' }] } }] }]);
  if (!it.want.fakeBiosServiceStep) {
    // conductor/servicing.py do_node_service: the steps fail validation, "Cannot service node".
    t.like(r, { kind: 'failed' });
    t.regex((r as { message: string }).message, /^servicing failed: .*Cannot service node/);
  } else {
    t.deepEqual(r, { kind: 'done' });
  }
});
