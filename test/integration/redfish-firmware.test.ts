// Issue 31 end to end on a whole node over a real Ironic 21.4 (redfish drivers) and the virtual
// datacenter: BIOS settings asked by a HostFirmwareSettings reach the simulated BIOS while the host
// prepares, invalid ones are refused with BMO's condition and never sent, and inspection leaves a
// HardwareData that goes with its host. The node talks to Ironic through a recorder, so what was
// (not) sent to Ironic is seen as Ironic saw it.
import test from 'ava';
import { startIronicNode } from '../support/ironic-node.ts';
import { startRecorder } from '../support/ironic-recorder.ts';
import type { Recorder } from '../support/ironic-recorder.ts';
import { redfishHost, redfishSecret, waitHost } from '../support/redfish-node.ts';
import type { RedfishTestNode } from '../support/redfish-node.ts';
import { startVirtualDatacenter } from '../../src/sim/datacenter/index.ts';
import { freePort, startIronic } from '../../src/sim/ironic/index.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';

const it = {} as RedfishTestNode & { recorder: Recorder };

test.before(async () => {
  const port = await freePort();
  const dc = await startVirtualDatacenter({ systems: [{ id: 'fw-set' }, { id: 'fw-bad' }, { id: 'fw-hw' }, { id: 'fw-bad-new' }], ironicUrl: `http://127.0.0.1:${port}`, heartbeatIntervalMs: 1_000, minHeartbeatGapMs: 200, tls: false });
  // The simulated BMCs publish BIOS registries; Debian's sushy reads them only with the overlay.
  const ironic = await startIronic({ port, bootServer: dc.bootServer, sushyRegistries: true });
  const recorder = await startRecorder(ironic.url);
  const n = await startIronicNode({ url: recorder.url, name: 'redfish-firmware', realDrivers: { deploy: dc.deployImages }, imageCheck: false });
  Object.assign(it, n, { ironic, dc, recorder, async stop() {
    await n.stop();
    n.client.close();
    await recorder.stop();
    await ironic.stop();
    await dc.stop();
  } });
});
test.after.always(async () => {
  await it.stop?.();
});

interface Condition { type: string; status: string; reason: string; message: string }
interface HfsStatus { settings?: Record<string, string>; schema?: { name: string; namespace: string }; conditions?: Condition[] }

const state = (name: string) => it.node.stats.hosts.get(`lab/${name}`);
const hfsStatus = async (name: string) => (await it.store.resources.get('HostFirmwareSettings', `lab/${name}`))?.status as HfsStatus | undefined;
const condition = (s: HfsStatus | undefined, type: string) => s?.conditions?.find((c) => c.type === type);
const system = (id: string): SimSystemInfo => {
  const found = it.dc.systems.find((s) => s.id === id);
  if (!found) throw new Error(`no simulated system ${id}`);
  return found;
};
function hfs(name: string, settings: Record<string, string | number>): unknown {
  return { apiVersion: 'metal3.io/v1alpha1', kind: 'HostFirmwareSettings', metadata: { name, namespace: 'lab' }, spec: { settings } };
}
async function apply(objects: unknown[]): Promise<void> {
  const applied = await it.store.applyObjects(objects);
  if (!applied.ok) throw new Error(`refused: ${JSON.stringify(applied.issues)}`);
}
// A bios clean step in a provisioning request Ironic received for this node.
const biosStepsSentFor = (name: string) => it.recorder.calls.filter((c) => c.node === `lab~${name}` && c.route === 'PUT /v1/nodes/{node}/states/provision'
  && JSON.stringify((c.body as { clean_steps?: unknown } | undefined)?.clean_steps ?? []).includes('"bios"'));

test('redfish firmware - a HostFirmwareSettings change is applied while preparing: the simulated BIOS, the status and its schema show it', async (t) => {
  const name = 'fw-set';
  const sys = system(name);
  const server = it.dc.server(sys.id);
  const seen = new Set<string>();
  const off = it.node.stats.onChange(() => { const s = state(name)?.state; if (s) seen.add(s); });
  t.teardown(off);
  t.is(server.system.state.bios.current['ProcVirtualization'], 'Enabled');
  t.is(server.system.state.bios.current['BootDelaySeconds'], 0);
  // The settings with the host, as a user applies a manifest: BootDelaySeconds as a string, as kubectl keeps an IntOrString often.
  await apply([redfishSecret(name, sys), redfishHost(it.dc, sys, name, { image: false }), hfs(name, { ProcVirtualization: 'Disabled', BootDelaySeconds: '7' })]);
  await waitHost(it, name, async () => state(name)?.state === 'available' && (await hfsStatus(name))?.settings?.['BootDelaySeconds'] === '7', 120_000, 'available with the settings read back', server);
  t.true(seen.has('preparing'), 'passed through preparing');
  // The simulated BIOS took them (Integer as a number: Ironic sent a JSON number).
  t.is(server.system.state.bios.current['ProcVirtualization'], 'Disabled');
  t.is(server.system.state.bios.current['BootDelaySeconds'], 7);
  t.deepEqual(server.system.state.bios.pending, {});
  t.is(biosStepsSentFor(name).length, 1, 'one apply_configuration');

  await waitHost(it, name, async () => condition(await hfsStatus(name), 'ChangeDetected')?.status === 'False', 30_000, 'no change left', server);
  const status = await hfsStatus(name);
  t.like(status?.settings, { ProcVirtualization: 'Disabled', BootDelaySeconds: '7', SerialNumber: server.system.hardware.serial });
  t.like(condition(status, 'Valid'), { status: 'True', reason: 'Success' });
  t.like(condition(status, 'ChangeDetected'), { status: 'False', reason: 'Success' });
  // The FirmwareSchema it names carries the model's registry rules.
  t.is(status?.schema?.namespace, 'lab');
  const schema = await it.store.resources.get('FirmwareSchema', `lab/${status?.schema?.name ?? ''}`);
  t.truthy(schema, `FirmwareSchema ${status?.schema?.name} exists`);
  const rules = schema?.spec?.['schema'] as Record<string, Record<string, unknown>> | undefined;
  const registry = server.system.model.registry;
  // Every attribute of the registry but the passwords, which a FirmwareSchema never keeps (as BMO).
  t.deepEqual(Object.keys(rules ?? {}).sort(), registry.attributes.filter((a) => a.type !== 'Password').map((a) => a.name).sort());
  t.like(rules?.['ProcVirtualization'], { attribute_type: 'Enumeration', allowable_values: ['Enabled', 'Disabled'], read_only: false });
  t.like(rules?.['BootDelaySeconds'], { attribute_type: 'Integer', lower_bound: 0, upper_bound: 60 });
  t.like(rules?.['SerialNumber'], { attribute_type: 'String', read_only: true, max_length: 32 });
  // Ironic 21.4 detects the vendor (redfish management's detect_vendor) but has no inventory from an
  // out-of-band inspection, so nothing names the model: BMO's schema would lack it too.
  t.is(schema?.spec?.['hardwareVendor'], registry.vendor);
});

test('redfish firmware - invalid settings are refused with BMO\'s condition and never sent: the simulated BIOS is unchanged', async (t) => {
  const name = 'fw-bad';
  const sys = system(name);
  const server = it.dc.server(sys.id);
  const before = { ...server.system.state.bios.current };
  await apply([redfishSecret(name, sys), redfishHost(it.dc, sys, name, { image: false })]);
  await waitHost(it, name, async () => state(name)?.state === 'available' && (await hfsStatus(name))?.schema !== undefined, 120_000, 'available, firmware read', server);
  const callsBefore = it.recorder.calls.length;

  // A read-only setting, an Integer out of its bounds, a name the BIOS does not have.
  const wanted = { SerialNumber: 'STOLEN-1', BootDelaySeconds: '600', NoSuchKnob: 'Enabled', ProcVirtualization: 'Disabled' };
  await it.store.resources.applyIntent('HostFirmwareSettings', `lab/${name}`, { spec: { settings: wanted } });
  await waitHost(it, name, async () => condition(await hfsStatus(name), 'Valid')?.status === 'False', 30_000, 'Valid False', server);
  const status = await hfsStatus(name);
  t.like(condition(status, 'Valid'), { status: 'False', reason: 'ConfigurationError', message: 'Invalid BIOS setting' });
  t.like(condition(status, 'ChangeDetected'), { status: 'True' });
  // The node keeps going: its host stays available, and nothing reached the BMC or Ironic.
  await waitHost(it, name, () => state(name)?.state === 'available' && it.recorder.calls.length > callsBefore + 5, 10_000, 'the node talked to Ironic since', server);
  t.is(state(name)?.state, 'available');
  t.deepEqual(biosStepsSentFor(name), [], 'no bios clean step');
  t.deepEqual(server.system.state.bios.current, before, 'simulated BIOS unchanged');
  t.deepEqual(server.system.state.bios.pending, {});
  t.is(status?.settings?.['ProcVirtualization'], 'Enabled', 'not even the valid one');
});

test('redfish firmware - invalid settings applied with a new host are refused the same way: it prepares without them', async (t) => {
  const name = 'fw-bad-new';
  const sys = system(name);
  const server = it.dc.server(sys.id);
  const before = { ...server.system.state.bios.current };
  const seen = new Set<string>();
  t.teardown(it.node.stats.onChange(() => { const s = state(name)?.state; if (s) seen.add(s); }));
  // Before the first firmware read the node knows neither the schema nor the host's settings:
  // nothing may be sent until they are known and the settings pass them (BMO's
  // getHostFirmwareSettings waits for Valid and ChangeDetected from its settings controller).
  await apply([redfishSecret(name, sys), redfishHost(it.dc, sys, name, { image: false }), hfs(name, { SerialNumber: 'STOLEN-2', BootDelaySeconds: '600', ProcVirtualization: 'Disabled' })]);
  await waitHost(it, name, async () => state(name)?.state === 'available' && condition(await hfsStatus(name), 'Valid')?.status === 'False', 120_000, 'available, Valid False', server);
  t.like(condition(await hfsStatus(name), 'Valid'), { reason: 'ConfigurationError', message: 'Invalid BIOS setting' });
  t.deepEqual(biosStepsSentFor(name), [], 'no bios clean step');
  t.deepEqual(server.system.state.bios.current, before, 'simulated BIOS unchanged');
  t.deepEqual(server.system.state.bios.pending, {});
  t.is(state(name)?.state, 'available');
});

test('redfish firmware - inspection leaves a HardwareData with the simulated hardware, owned by the host and deleted with it', async (t) => {
  const name = 'fw-hw';
  const sys = system(name);
  const server = it.dc.server(sys.id);
  const key = `lab/${name}`;
  await apply([redfishSecret(name, sys), redfishHost(it.dc, sys, name, { image: false })]);
  await waitHost(it, name, async () => state(name)?.state === 'available' && (await it.store.resources.get('HardwareData', key)) !== undefined, 120_000, 'available with HardwareData', server);
  const hd = await it.store.resources.get('HardwareData', key);
  const host = await it.store.get(key);
  const hw = hd?.spec?.['hardware'] as { cpu?: { count?: number; arch?: string }; ramMebibytes?: number; nics?: Array<{ mac: string }> } | undefined;
  const sim = server.system.hardware;
  // What Ironic 21.4's redfish (out-of-band) inspection gives: sushy sums processors' TotalThreads.
  t.is(hw?.cpu?.count, sim.cpuCount * sim.coresPerCpu * 2, 'CPU count');
  t.is(hw?.cpu?.arch, 'x86_64', 'CPU arch');
  t.is(hw?.ramMebibytes, sim.memoryGiB * 1024, 'memory');
  t.deepEqual((hw?.nics ?? []).map((nic) => nic.mac).sort(), [...sim.macs].sort(), 'NIC MACs');
  t.deepEqual(hw, host?.status?.hardware as unknown, 'as the host status has it');
  t.like(hd?.metadata.ownerReferences?.[0], { kind: 'BareMetalHost', name, uid: host?.metadata.uid });

  await it.store.resources.requestDelete('BareMetalHost', key);
  await waitHost(it, name, async () => state(name) === undefined && (await it.store.resources.get('HardwareData', key)) === undefined, 90_000, 'host and HardwareData gone', server);
  t.is(await it.store.get(key), undefined);
});
