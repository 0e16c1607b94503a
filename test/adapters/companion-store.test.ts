// A BareMetalHost's companions (HardwareData, FirmwareSchema, HostFirmwareSettings,
// HostFirmwareComponents, HostUpdatePolicy; issue 31.3) go the one resource path: the same
// ResourceStore keeps them on KV (memory KV and NATS JetStream) and on Kubernetes (the API test
// server), with a controller's create, owner references, spec and status writes under the one
// fence rule, watch by kind, and delete.
import test, { type ExecutionContext } from 'ava';
import { fileURLToPath } from 'node:url';
import { startSystem } from '../../src/actors/runtime/index.ts';
import { createKubeAdapter } from '../../src/adapters/kube/index.ts';
import { openKvStoreOn } from '../../src/adapters/store/index.ts';
import { openLocalStore } from '../../src/adapters/store/local-store.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import { HOST_COMPANION_KINDS, silentLogger, StaleFence, type Fence, type ResourceEvent, type ResourceStore } from '../../src/ports/index.ts';
import { startKubeApi, type KubeObject } from '../support/kube-api/index.ts';
import { startNatsServer } from '../support/nats-server.ts';
import { waitUntil } from '../support/wait.ts';
import { connectNats } from '../../src/bus/index.ts';

const CRD_DIRS = [fileURLToPath(new URL('../../deploy/crds', import.meta.url)), fileURLToPath(new URL('../kube/fixtures/crds', import.meta.url))];
const OLD: Fence = { shard: 3, epoch: 5, holder: 'node-a' };
const NEW: Fence = { shard: 3, epoch: 9, holder: 'node-b' };
const KEY = 'lab/twin';

const hfs = {
  apiVersion: 'metal3.io/v1alpha1',
  kind: 'HostFirmwareSettings',
  metadata: { name: 'twin', namespace: 'lab' },
  spec: { settings: { ProcTurboMode: 'Disabled' } },
};
const hup = {
  apiVersion: 'metal3.io/v1alpha1',
  kind: 'HostUpdatePolicy',
  metadata: { name: 'twin', namespace: 'lab' },
  spec: { firmwareSettings: 'onReboot', firmwareUpdates: 'onReboot' },
};
const owner = { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', name: 'twin', uid: '00000000-0000-4000-8000-000000000001', controller: true, blockOwnerDeletion: true };

async function companions(t: ExecutionContext, store: ResourceStore): Promise<void> {
  // What a user applied reads back by kind; a BareMetalHost of the same name is another object.
  t.deepEqual((await store.get('HostFirmwareSettings', KEY))?.spec, { settings: { ProcTurboMode: 'Disabled' } });
  t.is((await store.get('HostUpdatePolicy', KEY))?.spec?.['firmwareSettings'], 'onReboot');
  t.is(await store.get('BareMetalHost', KEY), undefined);
  t.deepEqual((await store.list('HostFirmwareSettings')).map((o) => `${o.kind} ${o.metadata.name}`), ['HostFirmwareSettings twin']);

  // The host's actor creates HardwareData once; a second create finds it and writes nothing.
  const events: string[] = [];
  const stop = store.watch((e: ResourceEvent) => events.push(`${e.type} ${e.kind} ${e.key}`), { kinds: [...HOST_COMPANION_KINDS] });
  const hardwareData = { apiVersion: 'metal3.io/v1alpha1', kind: 'HardwareData', metadata: { name: 'twin', namespace: 'lab', ownerReferences: [owner], finalizers: ['hardwaredata.metal3.io'] }, spec: { hardware: { hostname: 'twin', cpu: { count: 8 } } } };
  t.is(await store.createObject('HardwareData', hardwareData, NEW), 'created');
  await waitUntil(async () => (await store.get('HardwareData', KEY)) !== undefined, 5_000, 'HardwareData read back');
  t.is(await store.createObject('HardwareData', { ...hardwareData, spec: { hardware: { hostname: 'other' } } }, NEW), 'exists');
  const hd = await store.get('HardwareData', KEY);
  t.deepEqual(hd?.spec, { hardware: { hostname: 'twin', cpu: { count: 8 } } });
  t.like(hd?.metadata.ownerReferences?.[0], { kind: 'BareMetalHost', name: 'twin' });
  // Its spec follows a new inspection under the owner's fence; an older owner is refused.
  await store.patchSpec('HardwareData', KEY, { hardware: { hostname: 'twin', cpu: { count: 16 } } }, NEW);
  await waitUntil(async () => ((await store.get('HardwareData', KEY))?.spec?.['hardware'] as { cpu?: { count?: number } } | undefined)?.cpu?.count === 16, 5_000, 'HardwareData spec patched');
  await t.throwsAsync(store.patchSpec('HardwareData', KEY, { hardware: {} }, OLD), { instanceOf: StaleFence });

  // A shared FirmwareSchema: created by one host's actor, then owned by another's settings too.
  const schema = { apiVersion: 'metal3.io/v1alpha1', kind: 'FirmwareSchema', metadata: { name: 'schema-0123abcd', namespace: 'lab', ownerReferences: [{ apiVersion: 'metal3.io/v1alpha1', kind: 'HostFirmwareSettings', name: 'twin', uid: '00000000-0000-4000-8000-000000000002' }] }, spec: { hardwareVendor: 'Dell', schema: { ProcTurboMode: { attribute_type: 'Enumeration', allowable_values: ['Enabled', 'Disabled'] } } } };
  t.is(await store.createObject('FirmwareSchema', schema), 'created');
  await waitUntil(async () => (await store.get('FirmwareSchema', 'lab/schema-0123abcd')) !== undefined, 5_000, 'schema read back');
  t.true(await store.addOwnerReference('FirmwareSchema', 'lab/schema-0123abcd', { apiVersion: 'metal3.io/v1alpha1', kind: 'HostFirmwareSettings', name: 'other', uid: '00000000-0000-4000-8000-000000000003' }));
  t.false(await store.addOwnerReference('FirmwareSchema', 'lab/schema-0123abcd', { apiVersion: 'metal3.io/v1alpha1', kind: 'HostFirmwareSettings', name: 'other', uid: '00000000-0000-4000-8000-000000000003' }));
  await waitUntil(async () => (await store.get('FirmwareSchema', 'lab/schema-0123abcd'))?.metadata.ownerReferences?.length === 2, 5_000, 'second owner read back');

  // Status of the settings under the newer owner's fence; the older owner is refused.
  const status = { settings: { ProcTurboMode: 'Enabled' }, schema: { name: 'schema-0123abcd', namespace: 'lab' }, conditions: [{ type: 'ChangeDetected', status: 'True', reason: 'Success', message: '', lastTransitionTime: '2026-12-05T06:00:00Z' }] };
  await store.writeStatus('HostFirmwareSettings', KEY, status, NEW);
  await waitUntil(async () => (await store.get('HostFirmwareSettings', KEY))?.status?.['settings'] !== undefined, 5_000, 'settings status read back');
  t.deepEqual((await store.get('HostFirmwareSettings', KEY))?.status?.['settings'], { ProcTurboMode: 'Enabled' });
  t.deepEqual((await store.get('HostFirmwareSettings', KEY))?.spec, { settings: { ProcTurboMode: 'Disabled' } });
  await t.throwsAsync(store.writeStatus('HostFirmwareSettings', KEY, { settings: {} }, OLD), { instanceOf: StaleFence });

  // A user's change of the settings is told to watchers of the companion kinds.
  await store.applyIntent('HostFirmwareSettings', KEY, { spec: { settings: { ProcTurboMode: 'Enabled' } } });
  await waitUntil(() => events.includes(`upsert HostFirmwareSettings ${KEY}`), 5_000, 'settings change told');

  // Deleted with its host: the finalizer goes, then the object.
  await store.removeFinalizer('HardwareData', KEY, 'hardwaredata.metal3.io', NEW);
  t.is(await store.requestDelete('HardwareData', KEY), 'deleted');
  await waitUntil(async () => (await store.get('HardwareData', KEY)) === undefined, 5_000, 'HardwareData gone');
  await waitUntil(() => events.includes(`deleted HardwareData ${KEY}`), 5_000, 'deletion told');
  stop();
}

test('companion store - KV (memory KV): a host\'s companions through the one store', async (t) => {
  const substrate = memorySubstrate();
  const local = await openLocalStore(substrate.transport);
  t.teardown(() => local.resources.close());
  const applied = await local.applyObjects([hfs, hup]);
  t.true(applied.ok, JSON.stringify(applied.ok ? '' : applied.issues));
  await companions(t, local.resources);
});

test('companion store - KV (NATS JetStream): a host\'s companions through the one store, seen by a second node', async (t) => {
  const nats = await startNatsServer();
  t.teardown(() => nats.dispose());
  const a = await connectNats({ servers: nats.url, name: 'node-a' });
  const b = await connectNats({ servers: nats.url, name: 'node-b' });
  t.teardown(async () => { await a.close(); await b.close(); });
  const store = await openKvStoreOn(a, { maas: false });
  const other = await openKvStoreOn(b, { maas: false });
  t.teardown(async () => { await store.close(); await other.close(); });
  const result = await store.apply([hfs, hup]);
  t.true(result.ok, JSON.stringify(result.issues));
  await companions(t, store);
  // The second node reads what the first wrote, from the shared buckets.
  await waitUntil(async () => (await other.get('HostFirmwareSettings', KEY))?.status?.['settings'] !== undefined, 5_000, 'other node sees the status');
  t.is(await other.get('HardwareData', KEY), undefined);
  t.is((await other.get('FirmwareSchema', 'lab/schema-0123abcd'))?.metadata.ownerReferences?.length, 2);
});

test('companion store - Kubernetes (API test server): a host\'s companions through the one store', async (t) => {
  const api = await startKubeApi({ crdDir: CRD_DIRS, watchTimeoutSeconds: 5 });
  for (const o of [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lab' } }, hfs, hup]) api.create(o as KubeObject);
  const system = startSystem({ name: 'companion-store', onError: () => undefined });
  const adapter = createKubeAdapter({ kubeConfig: api.kubeConfig(), log: silentLogger, nodeName: 'node-b' });
  t.teardown(async () => {
    await adapter.close();
    system.stop();
    await api.close();
  });
  await adapter.start(system);
  await companions(t, adapter.store);
});

test('companion store - apply checks a companion with its CRD\'s rules and BMO\'s webhook, and writes nothing when one is wrong', async (t) => {
  const substrate = memorySubstrate();
  const local = await openLocalStore(substrate.transport);
  t.teardown(() => local.resources.close());
  const hfc = { apiVersion: 'metal3.io/v1alpha1', kind: 'HostFirmwareComponents', metadata: { name: 'twin', namespace: 'lab' }, spec: { updates: [{ component: 'bios', url: 'not a url' }] } };
  const applied = await local.applyObjects([hfs, hfc]);
  t.false(applied.ok);
  t.true(!applied.ok && applied.issues.some((i) => i.path === 'spec.updates[0].url'), JSON.stringify(applied.issues));
  t.is(await local.resources.get('HostFirmwareSettings', KEY), undefined);
});
