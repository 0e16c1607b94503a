// Issue 31 servicing end to end on a whole node, over the Ironic API test server (the installed
// Ironic 21.4 offers API 1.82 only; servicing needs 1.87, firmware updates while servicing 1.93):
// a provisioned host whose HostUpdatePolicy allows changes on reboot is serviced when asked
// (`metalfleet host service` sets the service annotation), its workload never deployed again; a
// failed servicing is a `servicing error` a fixed intent recovers from; an Ironic too old is
// refused with the version it needs. The node talks to the server through a recorder, so the
// verbs it sent are seen as Ironic received them.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { SERVICE_ANNOTATION } from '../../src/api/index.ts';
import { startIronicApiServer } from '../support/ironic-api/index.ts';
import type { IronicApiServer } from '../support/ironic-api/index.ts';
import { bmcSecret, ironicHost, startIronicNode } from '../support/ironic-node.ts';
import type { IronicTestNode } from '../support/ironic-node.ts';
import { startRecorder } from '../support/ironic-recorder.ts';
import type { Recorder } from '../support/ironic-recorder.ts';
import { waitUntil } from '../support/wait.ts';

interface Rig extends IronicTestNode {
  s: IronicApiServer;
  recorder: Recorder;
}

async function rig(t: ExecutionContext, maxVersion: string): Promise<Rig> {
  const s = await startIronicApiServer({ maxVersion, phaseDelayMs: 5 });
  t.teardown(() => s.close());
  const recorder = await startRecorder(s.url);
  t.teardown(() => recorder.stop());
  // fake-hardware with the fake firmware interface: the server lists components (1.86+).
  const n = await startIronicNode({ url: recorder.url, name: `servicing-${maxVersion.replace('.', '-')}`, driverOverride: { hardwareType: 'fake-hardware', firmwareInterface: 'fake' } });
  // Teardowns run last-registered first: the node before the recorder and the server.
  t.teardown(async () => {
    await n.stop();
    n.client.close();
  });
  const applied = await n.store.applyObjects([bmcSecret()]);
  if (!applied.ok) throw new Error(`Secret refused: ${JSON.stringify(applied.issues)}`);
  return { ...n, s, recorder };
}

const meta = (name: string) => ({ name, namespace: 'lab' });
const policy = (name: string) => ({ apiVersion: 'metal3.io/v1alpha1', kind: 'HostUpdatePolicy', metadata: meta(name), spec: { firmwareSettings: 'onReboot', firmwareUpdates: 'onReboot' } });
const components = (name: string, updates: Array<{ component: string; url: string }>) => ({ apiVersion: 'metal3.io/v1alpha1', kind: 'HostFirmwareComponents', metadata: meta(name), spec: { updates } });
const settings = (name: string, s: Record<string, string>) => ({ apiVersion: 'metal3.io/v1alpha1', kind: 'HostFirmwareSettings', metadata: meta(name), spec: { settings: s } });

async function apply(r: Rig, objects: unknown[]): Promise<void> {
  const applied = await r.store.applyObjects(objects);
  if (!applied.ok) throw new Error(`refused: ${JSON.stringify(applied.issues)}`);
}

/** What the host says, for a failure message. */
async function explain(r: Rig, key: string): Promise<string> {
  const snap = await r.node.snapshot(key);
  return [`${key}: ${snap?.state} ${snap?.status.operationalStatus} ${snap?.status.errorType ?? ''} ${snap?.status.errorMessage ?? ''}`, ...(snap?.recent ?? []).slice(-10).map((e) => `  ${e.message}`)].join('\n');
}
async function waitHost(r: Rig, key: string, cond: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  try {
    await waitUntil(cond, ms, what, 20);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${await explain(r, key)}`);
  }
}

/** A provisioned host, its status: OK, and its components read (when the server lists them). */
async function provisioned(t: ExecutionContext, r: Rig, name: string): Promise<{ key: string; opSeen: Set<string> }> {
  const key = `lab/${name}`;
  const opSeen = new Set<string>();
  t.teardown(r.node.stats.onChange(() => { const o = r.node.stats.hosts.get(key)?.operationalStatus; if (o) opSeen.add(o); }));
  await apply(r, [ironicHost(name)]);
  await waitHost(r, key, () => r.node.stats.hosts.get(key)?.state === 'provisioned' && r.node.stats.hosts.get(key)?.operationalStatus === 'OK', 30_000, `${name} provisioned`);
  return { key, opSeen };
}

/** The provision verbs the server accepted for the host's node, in order. */
const verbs = (r: Rig, name: string) => r.recorder.calls
  .filter((c) => c.route === 'PUT /v1/nodes/{node}/states/provision' && c.status === 202 && c.node === `lab~${name}`)
  .map((c) => String((c.body as { target?: unknown }).target));
const hfcStatus = async (r: Rig, key: string) => (await r.store.resources.get('HostFirmwareComponents', key))?.status as { components?: Array<{ component: string; currentVersion?: string; initialVersion?: string }> } | undefined;
const version = async (r: Rig, key: string, component: string) => (await hfcStatus(r, key))?.components?.find((c) => c.component === component)?.currentVersion;
const requestService = (r: Rig, key: string) => r.store.applyIntent(key, { annotations: { [SERVICE_ANNOTATION]: 'e2e' } });

test('ironic servicing - a provisioned host allowed onReboot is serviced when asked: servicing, the BMC flashed, deployed once (1.93)', async (t) => {
  const r = await rig(t, '1.93');
  const name = 'svc-a';
  const { key, opSeen } = await provisioned(t, r, name);
  await waitHost(r, key, async () => (await version(r, key, 'bmc')) === '1.0.0', 10_000, 'components read');

  await apply(r, [policy(name), components(name, [{ component: 'bmc', url: 'http://images.example/bmc-2.11.0.bin' }])]);
  await requestService(r, key);
  await waitHost(r, key, async () => (await version(r, key, 'bmc')) === '2.11.0' && r.node.stats.hosts.get(key)?.operationalStatus === 'OK', 30_000, 'serviced, the new version read');
  t.true(opSeen.has('servicing'), 'went through servicing');
  const host = await r.store.get(key);
  t.is(host?.status?.provisioning.state, 'provisioned');
  t.is(host?.status?.errorType ?? '', '');
  // Serviced as it powered on: it ends up on, the workload running again.
  await waitHost(r, key, async () => (await r.store.get(key))?.status?.poweredOn === true && r.s.node(`lab~${name}`)?.fields['power_state'] === 'power on', 10_000, 'powered on again');
  t.like((await hfcStatus(r, key))?.components?.find((c) => c.component === 'bmc'), { initialVersion: '1.0.0', currentVersion: '2.11.0' });
  t.is(r.s.node(`lab~${name}`)?.provisionState, 'active');
  // One deploy: the workload was serviced in place, never deployed or rebuilt again.
  const sent = verbs(r, name);
  t.is(sent.filter((v) => v === 'active' || v === 'rebuild').length, 1, sent.join(','));
  t.is(sent.filter((v) => v === 'service').length, 1, sent.join(','));
  t.is(sent.at(-1), 'service');
  const service = r.recorder.calls.find((c) => c.node === `lab~${name}` && (c.body as { target?: unknown } | undefined)?.target === 'service');
  t.deepEqual((service?.body as { service_steps?: unknown }).service_steps, [{ interface: 'firmware', step: 'update', args: { settings: [{ component: 'bmc', url: 'http://images.example/bmc-2.11.0.bin' }] } }]);
  t.is((await r.store.get(key))?.metadata.annotations?.[SERVICE_ANNOTATION], undefined, 'the request is served');
});

test('ironic servicing - settings-only servicing on API 1.87: the BIOS setting changes and shows in the status, deployed once', async (t) => {
  const r = await rig(t, '1.87');
  const name = 'svc-s';
  const { key, opSeen } = await provisioned(t, r, name);
  const hfsSettings = async () => ((await r.store.resources.get('HostFirmwareSettings', key))?.status as { settings?: Record<string, string> } | undefined)?.settings;
  await waitHost(r, key, async () => (await hfsSettings())?.['LogicalProc'] === 'Enabled', 10_000, 'settings read');
  await apply(r, [policy(name), settings(name, { LogicalProc: 'Disabled' })]);
  await requestService(r, key);
  await waitHost(r, key, async () => (await hfsSettings())?.['LogicalProc'] === 'Disabled' && r.node.stats.hosts.get(key)?.operationalStatus === 'OK', 30_000, 'serviced, the setting read back');
  t.true(opSeen.has('servicing'), 'went through servicing');
  t.is(r.s.node(`lab~${name}`)?.bios['LogicalProc'], 'Disabled');
  t.is((await r.store.get(key))?.status?.provisioning.state, 'provisioned');
  const sent = verbs(r, name);
  t.is(sent.filter((v) => v === 'active' || v === 'rebuild').length, 1, sent.join(','));
  t.is(sent.filter((v) => v === 'service').length, 1, sent.join(','));
});

test('ironic servicing - a failed servicing is a servicing error; a fixed intent recovers it without deploying again (1.93)', async (t) => {
  const r = await rig(t, '1.93');
  const name = 'svc-b';
  const { key } = await provisioned(t, r, name);
  await waitHost(r, key, async () => (await r.store.resources.get('HostFirmwareSettings', key))?.status?.['settings'] !== undefined, 10_000, 'settings read');
  // The BMC refuses this setting whenever it is sent (the fault stays for the whole test).
  r.s.failStep('bios.apply_configuration', { node: `lab~${name}`, kind: 'service', message: 'Attribute LogicalProc is read only' });
  await apply(r, [policy(name), settings(name, { LogicalProc: 'Disabled' })]);
  await requestService(r, key);
  await waitHost(r, key, async () => (await r.store.get(key))?.status?.errorType === 'servicing error', 30_000, 'servicing error');
  const failed = (await r.store.get(key))?.status;
  t.regex(failed?.errorMessage ?? '', /Attribute LogicalProc is read only/);
  t.true((failed?.errorCount ?? 0) >= 1, 'errorCount counts it');
  t.is(failed?.operationalStatus, 'error');
  t.is(failed?.provisioning.state, 'provisioned');

  // The user's fix: no longer that setting, a firmware update instead.
  await apply(r, [settings(name, {}), components(name, [{ component: 'bmc', url: 'http://images.example/bmc-2.12.0.bin' }])]);
  await waitHost(r, key, async () => {
    const s = (await r.store.get(key))?.status;
    return s?.operationalStatus === 'OK' && (s.errorType ?? '') === '' && (await version(r, key, 'bmc')) === '2.12.0';
  }, 30_000, 'recovered, flashed');
  const status = (await r.store.get(key))?.status;
  t.is(status?.errorCount, 0, 'errors cleared');
  t.is(status?.errorMessage ?? '', '');
  t.is(status?.provisioning.state, 'provisioned');
  t.is(r.s.node(`lab~${name}`)?.bios['LogicalProc'], 'Enabled', 'the refused setting never applied');
  t.is(r.s.node(`lab~${name}`)?.provisionState, 'active');
  t.false(r.s.node(`lab~${name}`)?.fields['maintenance'], 'maintenance cleared');
  const sent = verbs(r, name);
  t.is(sent.filter((v) => v === 'active' || v === 'rebuild').length, 1, sent.join(','));
  t.true(sent.filter((v) => v === 'service').length >= 2, sent.join(','));
});

test('ironic servicing - against API 1.82 a host asked to service is refused with a message naming 1.87; nothing is sent', async (t) => {
  const r = await rig(t, '1.82');
  const name = 'svc-c';
  const { key } = await provisioned(t, r, name);
  await waitHost(r, key, async () => (await r.store.resources.get('HostFirmwareSettings', key))?.status?.['settings'] !== undefined, 10_000, 'settings read');
  await apply(r, [policy(name), settings(name, { LogicalProc: 'Disabled' })]);
  await requestService(r, key);
  await waitHost(r, key, async () => (await r.store.get(key))?.status?.errorType === 'servicing error', 30_000, 'servicing error');
  const status = (await r.store.get(key))?.status;
  t.regex(status?.errorMessage ?? '', /servicing needs Ironic API 1\.87 or later; this Ironic offers up to 1\.82/);
  t.is(status?.provisioning.state, 'provisioned');
  t.false(verbs(r, name).includes('service'), 'no service verb sent');
  t.is(r.s.node(`lab~${name}`)?.provisionState, 'active');
  t.is(r.s.node(`lab~${name}`)?.bios['LogicalProc'], 'Enabled');
});
