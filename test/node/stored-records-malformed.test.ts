// A killed node's objects are listed from a live node's store (stored rows). A record there that
// metalfleet's admission never saw (a hand-made KV write, an older node's format) was shown as a
// blank Pending machine, dropped from its cluster, or missing: now it is listed as `unreadable`
// with the field that is wrong, beside the good ones, and nothing stored is lost.
import test from 'ava';
import { openKvStoreOn } from '../../src/adapters/store/kv-store.ts';
import { hostKvKey } from '../../src/adapters/store/nats-keys.ts';
import { NATS_HOSTS_BUCKET } from '../../src/adapters/store/nats-store.ts';
import { CLUSTER_LABEL } from '../../src/api/index.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import { storedClusterRows } from '../../src/node/stored-cluster-rows.ts';
import { storedHostRows } from '../../src/node/stored-host-rows.ts';
import { storedMaasInspect } from '../../src/node/stored-maas-inspect.ts';
import { unreadableInspect } from '../../src/node/stored-problem.ts';
import { InspectedHost } from '../../src/bus/messages/introspect.ts';
import { renderInspect } from '../../src/cli/introspect/index.ts';
import { waitUntil } from '../support/wait.ts';

const MAAS_API = 'infrastructure.cluster.x-k8s.io/v1beta1';
const machine = (name: string) => ({
  apiVersion: MAAS_API, kind: 'MaasMachine',
  metadata: { name, namespace: 'capi', labels: { [CLUSTER_LABEL]: 'c1' } },
  spec: { minCPU: 2, minMemory: 4096, image: 'ubuntu/jammy' },
});
const maasCluster = { apiVersion: MAAS_API, kind: 'MaasCluster', metadata: { name: 'c1', namespace: 'capi', labels: { [CLUSTER_LABEL]: 'c1' } }, spec: { dnsDomain: 'maas' } };

async function fleet(t: { teardown(f: () => unknown): void }) {
  const transport = createMemoryBus().connect('survivor');
  const store = await openKvStoreOn(transport);
  t.teardown(() => store.close());
  const applied = await store.apply([maasCluster, machine('m-ok'), machine('m-bad-status'), machine('m-bad-spec')]);
  if (!applied.ok) throw new Error(JSON.stringify(applied));
  await store.writeStatus('MaasMachine', 'capi/m-ok', { ready: true, machineState: 'Deployed', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-12-07T10:00:00Z' }] });
  // What admission would refuse, written straight to the store as a hand-made record would be.
  await store.writeStatus('MaasMachine', 'capi/m-bad-status', { ready: 'yes', machineState: 'Deployed' });
  await store.patchSpec('MaasMachine', 'capi/m-bad-spec', { minCPU: 'four' });
  await store.writeStatus('MaasCluster', 'capi/c1', { ready: 'no' });
  // A BareMetalHost whose only record is not even MessagePack or JSON.
  await (await transport.kv(NATS_HOSTS_BUCKET)).put(hostKvKey('lab/h-garbage'), Uint8Array.from([0xc1, 0xc1, 0xc1]));
  await waitUntil(() => store.recordProblem('BareMetalHost', 'lab/h-garbage') !== undefined, 2_000, 'the store notes the unreadable host');
  return store;
}

const NOW = Date.parse('2026-12-07T10:05:00Z');

test('stored rows - a MaasMachine whose stored status does not parse is listed as unreadable naming the field; the good one as its status says', async (t) => {
  const store = await fleet(t);
  const rows = await storedHostRows(store, { backend: 'ironic', maas: true, shardCount: 1 }, [0], NOW);
  const row = (key: string) => rows.find((r) => r.key === key);
  t.like(row('capi/m-bad-status'), { kind: 'MaasMachine', state: 'unreadable', operationalStatus: 'error', stored: true });
  t.regex(row('capi/m-bad-status')?.errorMessage ?? '', /^its stored record does not parse \(status\.ready: .*boolean/);
  t.like(row('capi/m-ok'), { state: 'Deployed', operationalStatus: 'OK', stateSinceMs: 300_000 });
  t.is(row('capi/m-ok')?.errorMessage, undefined);
  // The host no record of which can be read is there too, with the store's reason, not missing.
  t.like(row('lab/h-garbage'), { kind: 'BareMetalHost', state: 'unreadable', operationalStatus: 'error', stored: true });
  t.regex(row('lab/h-garbage')?.errorMessage ?? '', /does not parse/);
  // Listed, not removed: the store still holds every record as it was written.
  t.is((await store.get('MaasMachine', 'capi/m-bad-status'))?.status?.['ready'], 'yes');
});

test('stored rows - inspect of a stored MaasMachine with a bad spec or status says which field, as its newest warning', async (t) => {
  const store = await fleet(t);
  const badSpec = storedMaasInspect('capi/m-bad-spec', (await store.get('MaasMachine', 'capi/m-bad-spec'))!, () => 0, NOW);
  t.deepEqual(badSpec.spec, {});
  t.deepEqual(badSpec.recent.map((r) => [r.severity, r.reason]), [['Warning', 'StoreRecordInvalid']]);
  t.regex(badSpec.recent[0]!.message, /^its stored record does not parse \(spec\.minCPU: .*number/);
  const badStatus = storedMaasInspect('capi/m-bad-status', (await store.get('MaasMachine', 'capi/m-bad-status'))!, () => 0, NOW);
  t.is(badStatus.state, 'unreadable');
  t.regex(badStatus.recent[0]!.message, /status\.ready/);
  const ok = storedMaasInspect('capi/m-ok', (await store.get('MaasMachine', 'capi/m-ok'))!, () => 0, NOW);
  t.like(ok, { state: 'Deployed', spec: { imageUrl: 'ubuntu/jammy', minCPU: 2 }, recent: [] });
});

test('stored rows - a stored MaasCluster keeps its unreadable machines and its error names each bad record', async (t) => {
  const store = await fleet(t);
  const [cluster, ...others] = await storedClusterRows(store, 1, [0]);
  t.is(others.length, 0);
  t.deepEqual(cluster?.machines.map((m) => [m.key, m.machineState]), [['capi/m-bad-spec', 'unreadable'], ['capi/m-bad-status', 'unreadable'], ['capi/m-ok', 'Deployed']]);
  const error = cluster?.lastError ?? '';
  t.regex(error, /^its stored record does not parse \(status\.ready: /);
  t.regex(error, /MaasMachine capi\/m-bad-status: its stored record does not parse \(status\.ready: /);
  t.regex(error, /MaasMachine capi\/m-bad-spec: its stored record does not parse \(spec\.minCPU: /);
  t.false(error.includes('m-ok'));
});

test('stored rows - inspect of a stored host no record of which can be read shows it unreadable with the store\'s reason, as the CLI prints it', async (t) => {
  const store = await fleet(t);
  const problem = store.recordProblem('BareMetalHost', 'lab/h-garbage')!;
  const inspected = unreadableInspect('lab/h-garbage', 'BareMetalHost', 'ironic', 3, problem, NOW);
  t.true(InspectedHost.safeParse(inspected).success, 'a valid inspect reply');
  const lines = renderInspect('b', inspected, 400, NOW);
  t.true(lines.some((l) => /^state:\s+unreadable \(its record in the store cannot be read: see the warning below\)$/.test(l)), lines.join('\n'));
  t.true(lines.some((l) => l.includes('Warning') && l.includes('StoreRecordInvalid') && l.includes(problem.slice(0, 60))), lines.join('\n'));
});
