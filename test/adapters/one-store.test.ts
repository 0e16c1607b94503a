// One store instance serves every kind (issue 29.1): a BareMetalHost and a MaasMachine go through
// the same ResourceStore, on KV (the memory KV the embedded node runs on) and on Kubernetes (the
// API test server): get, list, watch by kind, writeStatus and the one fence rule, side by side.
import test, { type ExecutionContext } from 'ava';
import { fileURLToPath } from 'node:url';
import { startSystem } from '../../src/actors/runtime/index.ts';
import { createKubeAdapter } from '../../src/adapters/kube/index.ts';
import { openKvStoreOn } from '../../src/adapters/store/index.ts';
import { openLocalStoreWithMaas } from '../support/maas-node.ts';
import { companionNamed, kindNamed } from '../../src/machines/kinds.ts';
import { initialStatus } from '../../src/api/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import { silentLogger, StaleFence, type Fence, type ResourceEvent, type ResourceStore } from '../../src/ports/index.ts';
import { startKubeApi, type KubeObject } from '../support/kube-api/index.ts';
import { waitUntil } from '../support/wait.ts';

const CRD_DIRS = [fileURLToPath(new URL('../../deploy/crds', import.meta.url)), fileURLToPath(new URL('../kube/fixtures/crds', import.meta.url))];
const OLD: Fence = { shard: 3, epoch: 5, holder: 'node-a' };
const NEW: Fence = { shard: 3, epoch: 9, holder: 'node-b' };

const host = {
  apiVersion: 'metal3.io/v1alpha1',
  kind: 'BareMetalHost',
  metadata: { name: 'twin', namespace: 'lab' },
  spec: { online: true, bmc: { address: 'redfish://10.0.0.14/redfish/v1/Systems/1', credentialsName: 'bmc' }, bootMACAddress: '52:54:00:00:00:01' },
};
const machine = {
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
  kind: 'MaasMachine',
  metadata: { name: 'twin', namespace: 'lab' },
  spec: { image: 'ubuntu/jammy', minCPU: 1, minMemory: 1024 },
};

// Both objects are named lab/twin: the kind alone tells them apart.
async function sideBySide(t: ExecutionContext, store: ResourceStore): Promise<void> {
  const key = 'lab/twin';
  const got = await store.get('BareMetalHost', key);
  // Typed by kind: a BareMetalHost read has its spec fields without a cast.
  t.is(got?.spec.online, true);
  t.is((await store.get('MaasMachine', key))?.spec?.['image'], 'ubuntu/jammy');
  t.deepEqual((await store.list('BareMetalHost')).map((h) => `${h.kind} ${h.metadata.name}`), ['BareMetalHost twin']);
  t.deepEqual((await store.list('MaasMachine')).map((m) => `${m.kind} ${m.metadata.name}`), ['MaasMachine twin']);

  // A watch of one kind hears that kind only; of both, both.
  const hostEvents: string[] = [];
  const machineEvents: string[] = [];
  const both: string[] = [];
  const tell = (into: string[]) => (e: ResourceEvent) => into.push(`${e.type} ${e.kind} ${e.key}`);
  const stops = [
    store.watch(tell(hostEvents), { kinds: ['BareMetalHost'] }),
    store.watch(tell(machineEvents), { kinds: ['MaasMachine'] }),
    store.watch(tell(both), { kinds: ['BareMetalHost', 'MaasMachine'], keys: (k) => k === key }),
  ];
  await store.applyIntent('BareMetalHost', key, { annotations: { 'example.com/note': 'host' } });
  await store.applyIntent('MaasMachine', key, { annotations: { 'example.com/note': 'machine' } });
  await waitUntil(() => hostEvents.length > 0 && machineEvents.length > 0, 5_000, 'both watches told');
  t.true(hostEvents.every((e) => e === `upsert BareMetalHost ${key}`));
  t.true(machineEvents.every((e) => e === `upsert MaasMachine ${key}`));
  t.true(both.includes(`upsert BareMetalHost ${key}`) && both.includes(`upsert MaasMachine ${key}`));
  for (const stop of stops) stop();

  // Status of each kind under the newer owner's fence, then the older owner refused on both.
  await store.writeStatus('BareMetalHost', key, { ...initialStatus(), provisioning: { state: 'registering', ID: '' } }, NEW);
  await store.writeStatus('MaasMachine', key, { ready: false, machineState: 'Deploying' }, NEW);
  await waitUntil(async () => (await store.get('BareMetalHost', key))?.status?.provisioning.state === 'registering', 5_000, 'host status read back');
  await waitUntil(async () => (await store.get('MaasMachine', key))?.status?.['machineState'] === 'Deploying', 5_000, 'machine status read back');
  const before = store.staleFenceRefusals?.() ?? 0;
  await t.throwsAsync(store.writeStatus('BareMetalHost', key, { ...initialStatus(), provisioning: { state: 'available', ID: '' } }, OLD), { instanceOf: StaleFence });
  await t.throwsAsync(store.writeStatus('MaasMachine', key, { ready: true }, OLD), { instanceOf: StaleFence });
  await t.throwsAsync(store.addFinalizer('MaasMachine', key, 'late.metalfleet.io', OLD), { instanceOf: StaleFence });
  t.is(store.staleFenceRefusals?.(), before + 3);
  t.is((await store.get('BareMetalHost', key))?.status?.provisioning.state, 'registering');
  t.is((await store.get('MaasMachine', key))?.status?.['machineState'], 'Deploying');
}

test('one store - KV (memory KV): a BareMetalHost and a MaasMachine through one instance', async (t) => {
  const substrate = memorySubstrate();
  const local = await openLocalStoreWithMaas(substrate.transport);
  const store = local.resources;
  t.teardown(() => store.close());
  const applied = await local.applyObjects([host, machine]);
  t.true(applied.ok, JSON.stringify(applied.issues));
  await sideBySide(t, store);
});

test('one store - Kubernetes (API test server): a BareMetalHost and a MaasMachine through one instance', async (t) => {
  const api = await startKubeApi({ crdDir: CRD_DIRS, watchTimeoutSeconds: 5 });
  for (const o of [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lab' } }, host, machine]) api.create(o as KubeObject);
  const system = startSystem({ name: 'one-store', onError: () => undefined });
  const adapter = createKubeAdapter({ kubeConfig: api.kubeConfig(), log: silentLogger, nodeName: 'node-b', maas: true });
  t.teardown(async () => {
    await adapter.close();
    system.stop();
    await api.close();
  });
  await adapter.start(system);
  await sideBySide(t, adapter.store);
});

test('one store - the KV records open the buckets each kind declares in its kind.ts, each once', async (t) => {
  const substrate = memorySubstrate();
  const opened: string[] = [];
  const transport = { kv: (name: string, o?: Parameters<typeof substrate.transport.kv>[1]) => (opened.push(name), substrate.transport.kv(name, o)) };
  const store = await openKvStoreOn(transport);
  t.teardown(() => store.close());
  const declared = (kind: string) => kindNamed(kind)!.buckets;
  const companion = (kind: string) => companionNamed(kind)!.buckets;
  t.deepEqual(opened, [declared('BareMetalHost').spec, declared('BareMetalHost').status, companion('HardwareData').spec, companion('HardwareData').status, declared('MaasMachine').spec, declared('MaasMachine').status]);
  // A host's companions share one pair of buckets of their own, apart from the hosts'.
  for (const kind of ['FirmwareSchema', 'HostFirmwareSettings', 'HostFirmwareComponents', 'HostUpdatePolicy']) t.deepEqual(companion(kind), companion('HardwareData'));
  t.not(companion('HardwareData').spec, declared('BareMetalHost').spec);
  // Every kind keeps spec and status apart; the MAAS kinds share theirs (keys carry the kind).
  t.deepEqual(declared('MaasCluster'), declared('MaasMachine'));
  t.not(declared('MaasMachine').spec, declared('MaasMachine').status);
});
