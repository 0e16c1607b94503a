// A host's companions kept by its actor on a running node (issue 31.3): after inspection the host
// has its HardwareData, and the firmware read that follows gives it a FirmwareSchema and a
// HostFirmwareSettings with the BIOS settings in status; a user's HostFirmwareSettings change
// reaches the machine as its intent; deleting the host deletes its HardwareData.
import test from 'ava';
import { startTestNode, secret, bmh } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';

const KEY = 'lab/h1';

test('host companions - after inspection a fixture host has HardwareData and HostFirmwareSettings with status settings; deleting the host deletes its HardwareData', async (t) => {
  const { node, store } = await startTestNode({ objects: [secret(), bmh('h1', { image: false })] });
  t.teardown(() => node.stop());
  const resources = store.resources;
  await waitUntil(async () => (await store.get(KEY))?.status?.provisioning.state === 'available', 20_000, 'the host available');

  await waitUntil(async () => (await resources.get('HardwareData', KEY)) !== undefined, 10_000, 'its HardwareData');
  const hd = await resources.get('HardwareData', KEY);
  const host = await store.get(KEY);
  // What inspection found, as status.hardware has it, owned by the host.
  t.deepEqual(hd?.spec?.['hardware'], host?.status?.hardware);
  t.like(hd?.metadata.ownerReferences?.[0], { kind: 'BareMetalHost', name: 'h1', uid: host?.metadata.uid });

  await waitUntil(async () => (await resources.get('HostFirmwareSettings', KEY))?.status?.['settings'] !== undefined, 10_000, 'its settings read');
  const hfs = await resources.get('HostFirmwareSettings', KEY);
  const status = hfs?.status as { settings: Record<string, string>; schema?: { name: string; namespace: string }; conditions?: Array<{ type: string; status: string; reason: string }> };
  t.is(status.settings['ProcTurboMode'], 'Enabled');
  t.deepEqual(hfs?.spec, { settings: {} });
  // Nothing asked yet: valid, no change detected, as BMO's controller reports it.
  t.like(status.conditions?.find((c) => c.type === 'Valid'), { status: 'True', reason: 'Success' });
  t.like(status.conditions?.find((c) => c.type === 'ChangeDetected'), { status: 'False', reason: 'Success' });
  // The schema it follows is the shared one named by its contents, owned by none (a list of every
  // host of a model would grow with the fleet: firmware-schema/kind.ts).
  const schema = await resources.get('FirmwareSchema', `lab/${status.schema?.name ?? ''}`);
  t.regex(status.schema?.name ?? '', /^schema-[0-9a-f]{8}$/);
  t.truthy((schema?.spec?.['schema'] as Record<string, unknown> | undefined)?.['ProcTurboMode']);
  t.is(schema?.metadata.ownerReferences, undefined);
  // The components the backend lists.
  await waitUntil(async () => Array.isArray((await resources.get('HostFirmwareComponents', KEY))?.status?.['components']), 10_000, 'its components');

  // `inspect` (and the page, which shows the same answer) tells them.
  const inspected = await node.introspection.inspect(KEY);
  t.true(inspected.ok);
  const companions = inspected.ok ? inspected.host.companions : undefined;
  t.is(companions?.hardwareData, true);
  t.like(companions?.settings, { asked: 0, valid: true, changeDetected: false, schema: status.schema?.name });
  t.true((companions?.settings?.reported ?? 0) > 0);
  t.deepEqual(companions?.components?.versions.map((v) => v.component), ['bios', 'bmc']);
  t.is(companions?.updatePolicy, undefined);

  // Deleting the host (no image: nothing to deprovision) takes its HardwareData with it.
  await resources.requestDelete('BareMetalHost', KEY);
  await waitUntil(async () => (await store.get(KEY)) === undefined, 20_000, 'the host gone');
  await waitUntil(async () => (await resources.get('HardwareData', KEY)) === undefined, 10_000, 'its HardwareData gone');
  // The settings and components it owned go with it (Kubernetes' collector would; a KV store has none).
  await waitUntil(async () => (await resources.get('HostFirmwareSettings', KEY)) === undefined && (await resources.get('HostFirmwareComponents', KEY)) === undefined, 10_000, 'its settings and components gone');
  t.pass();
});

test('host companions - a user\'s settings change wakes the host, which applies it while preparing and reads it back into the status', async (t) => {
  const { node, store, fixture } = await startTestNode({ objects: [secret(), bmh('h2', { image: false })] });
  t.teardown(() => node.stop());
  const resources = store.resources;
  const key = 'lab/h2';
  const settingsOf = async () => (await resources.get('HostFirmwareSettings', key))?.status as { settings?: Record<string, string>; conditions?: Array<{ type: string; status: string }> } | undefined;
  await waitUntil(async () => (await settingsOf())?.settings?.['ProcTurboMode'] === 'Enabled', 20_000, 'its settings read');
  await waitUntil(async () => (await store.get(key))?.status?.provisioning.state === 'available', 20_000, 'the host available');
  const prepared = fixture.calls(key).prepare;

  await resources.applyIntent('HostFirmwareSettings', key, { spec: { settings: { ProcTurboMode: 'Disabled' } } });
  await waitUntil(async () => (await settingsOf())?.settings?.['ProcTurboMode'] === 'Disabled', 20_000, 'the new setting read back');
  // Applied by a second preparing (the machine heard the intent), and nothing is left to change.
  t.is(fixture.calls(key).prepare, prepared + 1);
  await waitUntil(async () => (await settingsOf())?.conditions?.find((c) => c.type === 'ChangeDetected')?.status === 'False', 10_000, 'no change left');
  t.is((await store.get(key))?.status?.provisioning.state, 'available');
});

test('host companions - a settings change on a provisioned host shows as ChangeDetected at once, not only after its next servicing', async (t) => {
  const { node, store, fixture } = await startTestNode({ objects: [secret(), bmh('h3')] });
  t.teardown(() => node.stop());
  const resources = store.resources;
  const key = 'lab/h3';
  const settingsOf = async () => (await resources.get('HostFirmwareSettings', key))?.status as { settings?: Record<string, string>; conditions?: Array<{ type: string; status: string }> } | undefined;
  const changeDetected = async () => (await settingsOf())?.conditions?.find((c) => c.type === 'ChangeDetected')?.status;
  await waitUntil(async () => (await store.get(key))?.status?.provisioning.state === 'provisioned', 30_000, 'the host provisioned');
  await waitUntil(async () => (await changeDetected()) === 'False', 10_000, 'its settings read, nothing asked');
  const calls = { prepare: fixture.calls(key).prepare, service: fixture.calls(key).service };

  await resources.applyIntent('HostFirmwareSettings', key, { spec: { settings: { ProcTurboMode: 'Disabled' } } });
  await waitUntil(async () => (await changeDetected()) === 'True', 10_000, 'the change detected');
  // Judged from the settings last read: nothing applied, the host not touched.
  t.is((await settingsOf())?.settings?.['ProcTurboMode'], 'Enabled');
  t.deepEqual({ prepare: fixture.calls(key).prepare, service: fixture.calls(key).service }, calls);
  t.is((await store.get(key))?.status?.provisioning.state, 'provisioned');
});
