// The MaasCluster machine: its DNS record, status, conditions and deletion, without I/O.
import test from 'ava';
import { MaasCluster, MaasMachine } from '../../src/api/index.ts';
import { dnsSuffixOf, initialMaasClusterState, stepMaasCluster } from '../../src/machines/maas-cluster/index.ts';
import type { DnsCallResult, MaasClusterEffect, MaasClusterState, MaasClusterStep } from '../../src/machines/maas-cluster/index.ts';
import { T0, capiCluster } from './maas-fixtures.ts';

const FINALIZER = 'maascluster.infrastructure.cluster.x-k8s.io';
const mc = (meta: Record<string, unknown> = {}) => MaasCluster.parse({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasCluster',
  metadata: { name: 'c1', namespace: 'default', uid: 'uid-c1', finalizers: [FINALIZER], ...meta }, spec: { dnsDomain: 'maas', failureDomains: ['az1'] },
});
const member = (name: string, ip: string, running: boolean, deleting = false) => MaasMachine.parse({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine',
  metadata: { name, namespace: 'default', labels: { 'cluster.x-k8s.io/control-plane': '' }, ...(deleting ? { deletionTimestamp: 'x' } : {}) },
  spec: { minCPU: 1, minMemory: 1, image: 'u' },
  status: { ready: running, machineState: 'Deployed', machinePowered: running, addresses: [{ type: 'ExternalIP', address: ip }] },
});
const observed = (s: MaasClusterState, o = s.object, machines = s.world.machines, cluster = capiCluster(), now = T0) =>
  stepMaasCluster(s, { type: 'observed', object: o, world: { cluster, machines } }, now);
const dnsCalls = (st: MaasClusterStep) => st.effects.flatMap((e) => (e.type === 'dns' ? [e.call] : []));
const answer = (st: MaasClusterStep, result: DnsCallResult, now = T0) => {
  const c = st.effects.find((e): e is Extract<MaasClusterEffect, { type: 'dns' }> => e.type === 'dns');
  if (!c) throw new Error('no DNS call');
  return stepMaasCluster(st.state, { type: 'dnsResult', seq: c.seq, result }, now);
};
const cond = (s: MaasClusterState, type: string) => s.status.conditions?.find((c) => c.type === type);
// The name a new record gets: the cluster, 6 hex derived from the MaasCluster's uid, the domain.
const NAME = `c1-${dnsSuffixOf(mc())}.maas`;
const record = (ips: string[]) => ({ id: 7, fqdn: NAME, ips });

function active(machines: MaasMachine[] = []): MaasClusterStep {
  const s0 = observed(initialMaasClusterState(mc()), mc(), machines);
  return answer(s0, { kind: 'record', record: record([]) });
}

test('maas cluster - finds the record by its new name, creates it empty with a 10 s TTL when missing', (t) => {
  const s0 = observed(initialMaasClusterState(mc({ finalizers: [] })));
  t.true(s0.effects.some((e) => e.type === 'addFinalizer'));
  t.deepEqual(dnsCalls(s0), [{ op: 'find', fqdn: NAME }]);
  t.is(cond(s0.state, 'LoadBalancerReady')?.reason, 'WaitForDNSName');
  const s1 = answer(s0, { kind: 'none' });
  t.deepEqual(dnsCalls(s1), [{ op: 'create', fqdn: NAME, ttl: 10, ips: [] }]);
  const s2 = answer(s1, { kind: 'record', record: record([]) });
  t.is(s2.state.phase, 'active');
  t.true(s2.state.status.ready);
  t.is(s2.state.status.network?.dnsName, NAME);
  t.deepEqual(s2.state.status.failureDomains, [{ name: 'az1', controlPlane: true }]);
  t.deepEqual(s2.effects.find((e) => e.type === 'writeSpec'), { type: 'writeSpec', patch: { controlPlaneEndpoint: { host: NAME, port: 6443 } } });
  t.is(cond(s2.state, 'LoadBalancerReady')?.status, 'True');
  t.is(cond(s2.state, 'APIServerAvailable')?.reason, 'APIServerNotReady');
  t.is(cond(s2.state, 'Ready')?.status, 'False');
});

test('maas cluster - running control-plane machines are attached; the members are told the record changed', (t) => {
  const a = active();
  const s = observed(a.state, mc(), [member('cp-0', '10.0.0.1', true), member('cp-1', '10.0.0.2', false)]);
  t.deepEqual(dnsCalls(s), [{ op: 'update', id: 7, ips: ['10.0.0.1'] }]);
  t.is(cond(s.state, 'DNSAttached')?.reason, 'DNSAttachPending');
  const done = answer(s, { kind: 'record', record: record(['10.0.0.1']) });
  t.true(done.effects.some((e) => e.type === 'notifyMembers'));
  t.is(cond(done.state, 'DNSAttached')?.status, 'True');
  t.is(cond(done.state, 'APIServerAvailable')?.status, 'True');
  t.is(cond(done.state, 'Ready')?.status, 'True');
});

test('maas cluster - a deleting control-plane machine is detached (the machine waits on this before its release)', (t) => {
  const a = active([member('cp-0', '10.0.0.1', true), member('cp-1', '10.0.0.2', true)]);
  const attached = answer(a, { kind: 'record', record: record(['10.0.0.1', '10.0.0.2']) });
  const s = observed(attached.state, mc(), [member('cp-0', '10.0.0.1', true), member('cp-1', '10.0.0.2', true, true)]);
  t.deepEqual(dnsCalls(s), [{ op: 'update', id: 7, ips: ['10.0.0.1'] }]);
  t.is(cond(s.state, 'DNSAttached')?.reason, 'DNSDetachPending');
});

test('maas cluster - a failed DNS call says LoadBalancerFailed and backs off', (t) => {
  const s0 = observed(initialMaasClusterState(mc()));
  const s1 = answer(s0, { kind: 'failed', message: '404 No Domain matches the given query.' });
  t.is(cond(s1.state, 'LoadBalancerReady')?.reason, 'LoadBalancerFailed');
  t.deepEqual(s1.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 1_000 }]);
  t.deepEqual(dnsCalls(stepMaasCluster(s1.state, { type: 'tick' }, T0 + 500)), []);
  t.deepEqual(dnsCalls(stepMaasCluster(s1.state, { type: 'tick' }, T0 + 1_000)), [{ op: 'find', fqdn: NAME }]);
});

test('maas cluster - a paused Cluster, or the paused annotation, stops all DNS work', (t) => {
  const paused = observed(initialMaasClusterState(mc()), mc(), [], capiCluster({ paused: true }));
  t.deepEqual(dnsCalls(paused), []);
  t.is(cond(paused.state, 'Paused')?.status, 'True');
  const annotated = observed(initialMaasClusterState(mc()), mc({ annotations: { 'cluster.x-k8s.io/paused': '' } }));
  t.deepEqual(dnsCalls(annotated), []);
});

test('maas cluster - waits for its Cluster before anything', (t) => {
  const s = stepMaasCluster(initialMaasClusterState(mc({ finalizers: [] })), { type: 'observed', object: mc({ finalizers: [] }), world: { cluster: null, machines: [] } }, T0);
  t.deepEqual(s.effects.filter((e) => e.type !== 'writeStatus'), []);
  t.truthy(s.state.waiting);
});

test('maas cluster - deletion waits for every machine, then deletes the record and the finalizer', (t) => {
  const a = active([member('cp-0', '10.0.0.1', true)]);
  const withRecord = answer(a, { kind: 'record', record: record(['10.0.0.1']) });
  const deleting = mc({ deletionTimestamp: 'x' });
  // Its machines still leave the record while the cluster waits for them.
  const detaching = observed(withRecord.state, deleting, [member('cp-0', '10.0.0.1', true, true)]);
  t.deepEqual(dnsCalls(detaching), [{ op: 'update', id: 7, ips: [] }]);
  const detached = answer(detaching, { kind: 'record', record: record([]) });
  t.true(detached.effects.some((e) => e.type === 'notifyMembers'));
  const waiting = observed(detached.state, deleting, [member('cp-0', '10.0.0.1', false, true)]);
  t.deepEqual(dnsCalls(waiting), []);
  t.deepEqual(waiting.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 10_000 }]);
  const empty = observed(waiting.state, deleting, []);
  t.deepEqual(dnsCalls(empty), [{ op: 'delete', id: 7 }]);
  const gone = answer(empty, { kind: 'none' });
  t.true(gone.state.gone);
  t.true(gone.effects.some((e) => e.type === 'removeFinalizer'));
});

test('maas cluster - the new name\'s 6 hex come from the MaasCluster\'s identity: the same for every owner, new for a new uid', (t) => {
  t.regex(NAME, /^c1-[0-9a-f]{6}\.maas$/);
  t.is(dnsSuffixOf(mc()), dnsSuffixOf(mc({ finalizers: [] })));
  const suffixes = new Set(['uid-c1', 'uid-c2', 'uid-c3', '6f1c2a9e-0b7d-4e52-9a43-1c1d2e3f4a5b'].map((uid) => dnsSuffixOf(mc({ uid }))));
  t.is(suffixes.size, 4);
  // A store without uids: namespace/name, stable too.
  const noUid = { metadata: { name: 'c1', namespace: 'default' } };
  t.is(dnsSuffixOf(noUid), dnsSuffixOf({ metadata: { name: 'c1', namespace: 'default' } }));
  t.not(dnsSuffixOf(noUid), dnsSuffixOf({ metadata: { name: 'c1', namespace: 'other' } }));
});

test('maas cluster - an owner killed between creating the record and writing its name: the next owner finds that record, creates none', (t) => {
  // The first owner: nothing found, the record created, and no status write ever lands.
  const first = answer(observed(initialMaasClusterState(mc())), { kind: 'none' });
  t.deepEqual(dnsCalls(first), [{ op: 'create', fqdn: NAME, ttl: 10, ips: [] }]);
  // The next owner starts from the object as stored: no dnsName in status.
  const next = observed(initialMaasClusterState(mc()));
  t.deepEqual(dnsCalls(next), [{ op: 'find', fqdn: NAME }]);
  const found = answer(next, { kind: 'record', record: record([]) });
  t.is(found.state.phase, 'active');
  t.is(found.state.status.network?.dnsName, NAME);
  t.false(dnsCalls(found).some((c) => c.op === 'create'));
});

test('maas cluster - a name already in status (a random one from before) is kept', (t) => {
  const named = { ...mc(), status: { ready: true, network: { dnsName: 'c1-3f9a2b.maas' } } };
  t.deepEqual(dnsCalls(observed(initialMaasClusterState(named), named)), [{ op: 'find', fqdn: 'c1-3f9a2b.maas' }]);
});
