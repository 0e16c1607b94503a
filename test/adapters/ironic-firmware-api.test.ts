import test from 'ava';
import { createIronicClient } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { FirmwareChanges } from '../../src/api/index.ts';
import type { OpResult } from '../../src/machines/bmh/index.ts';
import type { HostData, Provisioner } from '../../src/ports/index.ts';
import { startIronicApiServer } from '../support/ironic-api/index.ts';
import { redfishHostData, settled } from '../support/redfish-host-data.ts';
import type { IronicApiServer } from '../support/ironic-api/index.ts';
import { startRecorder } from '../support/ironic-recorder.ts';
import type { Recorder } from '../support/ironic-recorder.ts';

// Firmware and servicing on the Ironic API test server, for the versions the installed Ironic
// (21.4, 1.82) lacks: components (1.86), servicing (1.87), firmware.update while servicing (26.1,
// 1.93). The provisioner is the production one; a recording proxy shows what reached Ironic.

interface Rig {
  readonly s: IronicApiServer;
  readonly recorder: Recorder;
  readonly p: Provisioner;
}

async function rig(t: { teardown(fn: () => unknown): void }, maxVersion: string): Promise<Rig> {
  const s = await startIronicApiServer({ maxVersion, phaseDelayMs: 2 });
  const recorder = await startRecorder(s.url);
  const client = createIronicClient({ endpoint: recorder.url });
  t.teardown(async () => {
    client.close();
    await recorder.stop();
    await s.close();
  });
  const p = createIronicProvisioner({ client, driverOverride: { hardwareType: 'fake-hardware', firmwareInterface: 'fake' }, polls: { shortMs: 5, longMs: 10 }, imageCheck: { enabled: false } });
  return { s, recorder, p };
}

const base: HostData = redfishHostData('fw', '52:54:00:aa:dd:01', { image: { url: 'http://images.example/os.qcow2', checksum: 'http://images.example/os.qcow2.sha256sum' } });

async function done(op: () => Promise<OpResult>): Promise<OpResult & { kind: 'done' }> {
  const r = await settled(op);
  if (r.kind !== 'done') throw new Error(JSON.stringify(r));
  return r;
}

const noRaid = { target: null, actual: null };

/** Registered, inspected, prepared with `firmware` and deployed: the host's node id. */
async function provisioned({ p }: Rig, firmware?: FirmwareChanges): Promise<HostData> {
  const r = await done(() => p.register(base, { op: 'register', restartOnFailure: false, credentialsChanged: false }));
  const h = { ...base, provisionerId: r.provisionerId ?? '' };
  await done(() => p.inspect(h, { op: 'inspect', restartOnFailure: false, refresh: false }));
  await done(() => p.prepare(h, { op: 'prepare', restartOnFailure: false, raid: noRaid, ...(firmware ? { firmware } : {}) }));
  await done(() => p.provision(h, { op: 'provision', image: base.spec.image, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints: undefined }));
  return h;
}

/** The provision verbs Ironic received for the host's node, in order. */
function verbs(recorder: Recorder): string[] {
  return recorder.calls.filter((c) => c.route === 'PUT /v1/nodes/{node}/states/provision' && c.status === 202).map((c) => String((c.body as { target?: unknown }).target));
}

test('ironic-api firmware - prepare flashes and sets the BIOS; servicing flashes again, the host active and never redeployed (1.93)', async (t) => {
  const r = await rig(t, '1.93');
  const h = await provisioned(r, { settings: { LogicalProc: 'Disabled' }, updates: [{ component: 'bmc', url: 'http://images.example/bmc-2.11.0.bin' }] });
  const read = await done(() => r.p.firmware!(h, { op: 'firmware' }));
  t.is(read.firmware?.settings['LogicalProc'], 'Disabled');
  t.like(read.firmware?.components?.find((c) => c.component === 'bmc'), { initialVersion: '1.0.0', currentVersion: '2.11.0', lastVersionFlashed: '2.11.0' });
  // The registry fields came (1.74), as the server's default BIOS registers them.
  t.like(read.firmware?.schema?.['LogicalProc'], { attribute_type: 'Enumeration', read_only: false });
  t.deepEqual([...(read.firmware?.schema?.['LogicalProc']?.allowable_values ?? [])].sort(), ['Disabled', 'Enabled']);

  const serviced = await done(() => r.p.service!(h, { op: 'service', restartOnFailure: false, firmware: { settings: { ProcTurboMode: 'Disabled' }, updates: [{ component: 'bios', url: 'http://images.example/bios-1.2.0.bin' }] } }));
  t.deepEqual(serviced, { kind: 'done' });
  t.is(r.s.node(h.provisionerId)?.provisionState, 'active');
  t.is(r.s.node(h.provisionerId)?.bios['ProcTurboMode'], 'Disabled');
  t.like(r.s.node(h.provisionerId)?.firmware.find((c) => c.component === 'bios'), { current_version: '1.2.0' });
  // Deployed once: servicing sent `service`, never `active` or `rebuild` again.
  t.deepEqual(verbs(r.recorder).filter((v) => v !== 'manage'), ['inspect', 'clean', 'provide', 'active', 'service']);
  const service = r.recorder.calls.find((c) => (c.body as { target?: unknown } | undefined)?.target === 'service');
  t.deepEqual((service?.body as { service_steps?: unknown }).service_steps, [
    { interface: 'bios', step: 'apply_configuration', args: { settings: [{ name: 'ProcTurboMode', value: 'Disabled' }] } },
    { interface: 'firmware', step: 'update', args: { settings: [{ component: 'bios', url: 'http://images.example/bios-1.2.0.bin' }] } },
  ]);
});

test('ironic-api firmware - a failing service step fails with Ironic\'s last_error; a later service with fixed changes succeeds (1.87)', async (t) => {
  const r = await rig(t, '1.87');
  const h = await provisioned(r);
  r.s.failStep('bios.apply_configuration', { kind: 'service', message: 'Attribute LogicalProc is read only', times: 1 });
  const wrong = { settings: { LogicalProc: 'Disabled' }, updates: [] };
  const failed = await settled(() => r.p.service!(h, { op: 'service', restartOnFailure: false, firmware: wrong }));
  t.is(failed.kind, 'failed');
  t.regex(failed.kind === 'failed' ? failed.message : '', /^servicing failed: Node [0-9a-f-]+ failed step \{'interface': 'bios', 'step': 'apply_configuration'.*\}: Attribute LogicalProc is read only \(Ironic fault: service failure\)$/);
  t.is(r.s.node(h.provisionerId)?.provisionState, 'service failed');
  // The host retries (restartOnFailure) with what the user fixed: maintenance cleared, serviced.
  const fixed = { settings: { ProcTurboMode: 'Disabled' }, updates: [] };
  t.deepEqual(await settled(() => r.p.service!(h, { op: 'service', restartOnFailure: true, firmware: fixed })), { kind: 'done' });
  const n = r.s.node(h.provisionerId);
  t.is(n?.provisionState, 'active');
  t.is(n?.fields['maintenance'], false);
  t.is(n?.bios['ProcTurboMode'], 'Disabled');
  t.is(n?.bios['LogicalProc'], 'Enabled');
  t.is(verbs(r.recorder).filter((v) => v === 'active').length, 1);
});

test('ironic-api firmware - 1.86 lists components but refuses servicing; 1.87 refuses firmware updates while servicing; nothing sent', async (t) => {
  const r86 = await rig(t, '1.86');
  const h = await provisioned(r86);
  const read = await done(() => r86.p.firmware!(h, { op: 'firmware' }));
  t.deepEqual(read.firmware?.components?.map((c) => [c.component, c.currentVersion]), [['bios', '1.0.0'], ['bmc', '1.0.0']]);
  r86.recorder.clear();
  t.deepEqual(await r86.p.service!(h, { op: 'service', restartOnFailure: false, firmware: { settings: { LogicalProc: 'Disabled' }, updates: [] } }),
    { kind: 'failed', message: 'servicing needs Ironic API 1.87 or later; this Ironic offers up to 1.86', retryAfterMs: null });
  t.deepEqual(r86.recorder.calls.filter((c) => c.nodeRef !== undefined), []);

  const r87 = await rig(t, '1.87');
  const h87 = await provisioned(r87);
  r87.recorder.clear();
  t.deepEqual(await r87.p.service!(h87, { op: 'service', restartOnFailure: false, firmware: { settings: {}, updates: [{ component: 'bmc', url: 'http://images.example/bmc-2.0.0.bin' }] } }),
    { kind: 'failed', message: 'a firmware update while servicing needs Ironic API 1.93 or later; this Ironic offers up to 1.87', retryAfterMs: null });
  t.deepEqual(r87.recorder.calls.filter((c) => c.nodeRef !== undefined), []);
});

test('ironic-api firmware - a node never inspected is read without asking for its inventory (only an inspection stores one); an inspected one still is', async (t) => {
  const r = await rig(t, '1.86');
  const read = () => done(() => r.p.firmware!({ ...base, provisionerId: '' }, { op: 'firmware' }));
  await done(() => r.p.register(base, { op: 'register', restartOnFailure: false, credentialsChanged: false }));
  r.recorder.clear();
  const fresh = await read();
  t.truthy(fresh.firmware?.settings);
  const inventory = (): number => r.recorder.calls.filter((c) => c.route === 'GET /v1/nodes/{node}/inventory').length;
  t.is(inventory(), 0);
  await done(() => r.p.inspect(base, { op: 'inspect', restartOnFailure: false, refresh: false }));
  r.recorder.clear();
  await read();
  t.is(inventory(), 1);
});
