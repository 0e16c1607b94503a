// A MaasCluster deleted while control-plane machines remain, stepped by an owner that does not
// know its record yet (a restart, a shard failover): the record is read first, so the deleting
// machines leave it (each waits for that before its release, maas-machine/deleting.ts) and the
// cluster's deletion does not wait for machines that wait for it. The finalizer stays while any
// MaasMachine of the cluster exists (CAPMAAS §2.2 reconcileDelete), whatever the read found.
import test from 'ava';
import { MaasCluster, MaasMachine } from '../../src/api/index.ts';
import { initialMaasClusterState, stepMaasCluster } from '../../src/machines/maas-cluster/index.ts';
import type { DnsCallResult, MaasClusterEffect, MaasClusterStep } from '../../src/machines/maas-cluster/index.ts';
import { T0, capiCluster } from './maas-fixtures.ts';

const FINALIZER = 'maascluster.infrastructure.cluster.x-k8s.io';
const NAME = 'c1-abcdef.maas';
const DELETING = MaasCluster.parse({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasCluster',
  metadata: { name: 'c1', namespace: 'default', uid: 'uid-c1', finalizers: [FINALIZER], deletionTimestamp: '2026-01-01T00:00:00Z' },
  spec: { dnsDomain: 'maas', controlPlaneEndpoint: { host: NAME, port: 6443 } },
  status: { ready: true, network: { dnsName: NAME } },
});
const cp = (name: string, ip: string, deleting: boolean) => MaasMachine.parse({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine',
  metadata: { name, namespace: 'default', labels: { 'cluster.x-k8s.io/control-plane': '', 'cluster.x-k8s.io/cluster-name': 'c1' }, ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
  spec: { minCPU: 1, minMemory: 1, image: 'ubuntu/jammy' },
  status: { ready: true, machineState: 'Deployed', machinePowered: true, addresses: [{ type: 'ExternalIP', address: ip }] },
});
const fresh = (machines: MaasMachine[]) => stepMaasCluster(initialMaasClusterState(DELETING), { type: 'observed', object: DELETING, world: { cluster: capiCluster(), machines } }, T0);
const dnsCalls = (st: MaasClusterStep) => st.effects.flatMap((e) => (e.type === 'dns' ? [e.call] : []));
const answer = (st: MaasClusterStep, result: DnsCallResult, now = T0) => {
  const c = st.effects.find((e): e is Extract<MaasClusterEffect, { type: 'dns' }> => e.type === 'dns');
  if (!c) throw new Error(`no DNS call in ${JSON.stringify(st.effects.map((e) => e.type))}`);
  return stepMaasCluster(st.state, { type: 'dnsResult', seq: c.seq, result }, now);
};
const removesFinalizer = (st: MaasClusterStep) => st.effects.some((e) => e.type === 'removeFinalizer');

test('maas cluster delete hunt - a new owner reads the record and takes the deleting control plane out of it', (t) => {
  const s0 = fresh([cp('cp-0', '10.0.0.1', true), cp('cp-1', '10.0.0.2', true)]);
  t.deepEqual(dnsCalls(s0), [{ op: 'find', fqdn: NAME }]);
  const found = answer(s0, { kind: 'record', record: { id: 7, fqdn: NAME, ips: ['10.0.0.1', '10.0.0.2'] } });
  t.deepEqual(dnsCalls(found), [{ op: 'update', id: 7, ips: [] }]);
  t.false(removesFinalizer(found));
  const detached = answer(found, { kind: 'record', record: { id: 7, fqdn: NAME, ips: [] } });
  t.true(detached.effects.some((e) => e.type === 'notifyMembers'));
  t.false(removesFinalizer(detached));
  t.is(detached.state.phase, 'deleting');
});

test('maas cluster delete hunt - the record is read once, not on every wait', (t) => {
  const found = answer(fresh([cp('cp-0', '10.0.0.1', true)]), { kind: 'record', record: { id: 7, fqdn: NAME, ips: [] } });
  t.deepEqual(dnsCalls(found), []);
  t.deepEqual(found.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 10_000 }]);
  t.deepEqual(dnsCalls(stepMaasCluster(found.state, { type: 'tick' }, T0 + 10_000)), []);
});

for (const [what, result] of [
  ['no record', { kind: 'none' }],
  ['no DNS domain', { kind: 'failed', reason: 'domainNotFound', message: 'GET /dnsresources/ answered 404: No Domain matches the given query.' }],
] as const) {
  test(`maas cluster delete hunt - ${what} while machines remain: the finalizer stays until they are gone`, (t) => {
    const read = answer(fresh([cp('cp-0', '10.0.0.1', true)]), result);
    t.false(removesFinalizer(read));
    t.false(read.state.gone);
    t.deepEqual(dnsCalls(stepMaasCluster(read.state, { type: 'tick' }, T0 + 10_000)), []);
    const empty = stepMaasCluster(read.state, { type: 'observed', object: DELETING, world: { cluster: capiCluster(), machines: [] } }, T0 + 20_000);
    t.deepEqual(dnsCalls(empty), []);
    t.true(removesFinalizer(empty));
    t.true(empty.state.gone);
  });
}
