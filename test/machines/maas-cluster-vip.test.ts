// The MaasCluster machine with a control-plane VIP (spec.controlPlaneVIP) and with the DNS record's
// interface chosen (spec.apiServerInterface), without I/O.
import test from 'ava';
import { MaasCluster, MaasMachine } from '../../src/api/index.ts';
import { dnsSuffixOf, initialMaasClusterState, stepMaasCluster } from '../../src/machines/maas-cluster/index.ts';
import type { IpCallResult, MaasClusterEffect, MaasClusterState, MaasClusterStep, MachineNic } from '../../src/machines/maas-cluster/index.ts';
import { T0, capiCluster } from './maas-fixtures.ts';

const FINALIZER = 'maascluster.infrastructure.cluster.x-k8s.io';
const VIP = { subnet: '10.10.1.0/24', address: '10.10.1.200', interface: 'eth0' };
type Spec = Record<string, unknown>;
const mc = (spec: Spec = { controlPlaneVIP: VIP }, meta: Record<string, unknown> = {}, status?: Record<string, unknown>) => MaasCluster.parse({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasCluster',
  metadata: { name: 'c1', namespace: 'default', uid: 'uid-c1', finalizers: [FINALIZER], ...meta },
  spec: { dnsDomain: 'maas', failureDomains: ['az1'], ...spec },
  ...(status ? { status } : {}),
});
const member = (name: string, ip: string, running: boolean, o: { deleting?: boolean; systemId?: string } = {}) => MaasMachine.parse({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine',
  metadata: { name, namespace: 'default', labels: { 'cluster.x-k8s.io/control-plane': '' }, ...(o.deleting ? { deletionTimestamp: 'x' } : {}) },
  spec: { minCPU: 1, minMemory: 1, image: 'u', ...(o.systemId ? { systemID: o.systemId } : {}) },
  status: { ready: running, machineState: 'Deployed', machinePowered: running, addresses: [{ type: 'ExternalIP', address: ip }] },
});
const observed = (s: MaasClusterState, o = s.object, machines = s.world.machines, now = T0) =>
  stepMaasCluster(s, { type: 'observed', object: o, world: { cluster: capiCluster(), machines } }, now);
const ipCalls = (st: MaasClusterStep) => st.effects.flatMap((e) => (e.type === 'ip' ? [e.call] : []));
const dnsCalls = (st: MaasClusterStep) => st.effects.flatMap((e) => (e.type === 'dns' ? [e.call] : []));
const answer = (st: MaasClusterStep, result: IpCallResult, now = T0) => {
  const c = st.effects.find((e): e is Extract<MaasClusterEffect, { type: 'ip' }> => e.type === 'ip');
  if (!c) throw new Error(`no ip call in ${JSON.stringify(st.effects.map((e) => e.type))}`);
  return stepMaasCluster(st.state, { type: 'ipResult', seq: c.seq, result }, now);
};
const cond = (s: MaasClusterState, type: string) => s.status.conditions?.find((c) => c.type === type);
const NAME = `c1-${dnsSuffixOf(mc())}.maas`;

function reserved(spec: Spec = { controlPlaneVIP: VIP }, machines: MaasMachine[] = []): MaasClusterStep {
  const s0 = observed(initialMaasClusterState(mc(spec)), mc(spec), machines);
  const s1 = answer(s0, { kind: 'none' });
  return answer(s1, { kind: 'vip', address: VIP.address });
}

test('maas cluster vip - looks for a reservation first, then reserves the VIP with the API name as hostname; no DNS record', (t) => {
  const s0 = observed(initialMaasClusterState(mc()));
  t.deepEqual(ipCalls(s0), [{ op: 'findVip', fqdn: NAME, subnet: VIP.subnet, address: VIP.address }]);
  t.deepEqual(dnsCalls(s0), []);
  t.is(cond(s0.state, 'LoadBalancerReady')?.reason, 'WaitForVIP');
  t.false(s0.state.status.ready);
  const s1 = answer(s0, { kind: 'none' });
  t.deepEqual(ipCalls(s1), [{ op: 'reserveVip', subnet: VIP.subnet, address: VIP.address, hostname: NAME }]);
  const s2 = answer(s1, { kind: 'vip', address: VIP.address });
  t.is(s2.state.phase, 'active');
  t.deepEqual(dnsCalls(s2), []);
  t.true(s2.state.status.ready);
  t.deepEqual(s2.state.status.controlPlaneVIP, { address: VIP.address, subnet: VIP.subnet });
  t.is(s2.state.status.network?.dnsName, NAME);
  t.deepEqual(s2.effects.find((e) => e.type === 'writeSpec'), { type: 'writeSpec', patch: { controlPlaneEndpoint: { host: VIP.address, port: 6443 } } });
  t.is(cond(s2.state, 'LoadBalancerReady')?.status, 'True');
  t.is(cond(s2.state, 'DNSAttached'), undefined);
  t.is(cond(s2.state, 'APIServerAvailable')?.reason, 'APIServerNotReady');
  t.true(s2.effects.some((e) => e.type === 'event' && e.reason === 'VIPReserved'));
});

test('maas cluster vip - without an address MAAS picks one; a reservation a former owner made is adopted, not doubled', (t) => {
  const spec = { controlPlaneVIP: { subnet: VIP.subnet } };
  const s0 = observed(initialMaasClusterState(mc(spec)), mc(spec));
  t.deepEqual(ipCalls(s0), [{ op: 'findVip', fqdn: NAME, subnet: VIP.subnet }]);
  const adopted = answer(s0, { kind: 'vip', address: '10.10.1.2' });
  t.deepEqual(ipCalls(adopted), []);
  t.is(adopted.state.status.controlPlaneVIP?.address, '10.10.1.2');
  t.is(adopted.state.phase, 'active');
});

test('maas cluster vip - a running control plane makes the API available; the VIP is checked again after resyncMs and re-reserved if MAAS lost it', (t) => {
  const a = reserved();
  const s = observed(a.state, mc(), [member('cp-0', '10.10.1.10', true)], T0 + 1_000);
  t.is(cond(s.state, 'APIServerAvailable')?.status, 'True');
  t.is(cond(s.state, 'Ready')?.status, 'True');
  t.deepEqual(ipCalls(s), []);
  const later = stepMaasCluster(s.state, { type: 'tick' }, T0 + 30_000);
  t.deepEqual(ipCalls(later), [{ op: 'findVip', fqdn: NAME, subnet: VIP.subnet, address: VIP.address }]);
  const lost = answer(later, { kind: 'none' }, T0 + 30_000);
  t.deepEqual(ipCalls(lost), [{ op: 'reserveVip', subnet: VIP.subnet, address: VIP.address, hostname: NAME }]);
  t.true(lost.effects.some((e) => e.type === 'event' && e.reason === 'VIPLost'));
});

test('maas cluster vip - a taken address says LoadBalancerFailed and backs off; the reservation is tried again after the delay', (t) => {
  const s0 = answer(observed(initialMaasClusterState(mc())), { kind: 'none' });
  const failed = answer(s0, { kind: 'failed', message: '404 The IP address 10.10.1.200 is already in use.', retryable: false });
  t.is(cond(failed.state, 'LoadBalancerReady')?.reason, 'LoadBalancerFailed');
  t.regex(cond(failed.state, 'LoadBalancerReady')?.message ?? '', /10\.10\.1\.200 .*already in use/);
  t.false(failed.state.status.ready);
  t.deepEqual(failed.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 1_000 }]);
  t.deepEqual(ipCalls(stepMaasCluster(failed.state, { type: 'tick' }, T0 + 500)), []);
  t.deepEqual(ipCalls(stepMaasCluster(failed.state, { type: 'tick' }, T0 + 1_000)).map((c) => c.op), ['reserveVip']);
});

test('maas cluster vip - a control-plane machine leaving changes no record; the VIP stays reserved until every machine is gone, then is released', (t) => {
  const a = reserved({ controlPlaneVIP: VIP }, [member('cp-0', '10.10.1.10', true), member('cp-1', '10.10.1.11', true)]);
  const leaving = observed(a.state, mc(), [member('cp-0', '10.10.1.10', true), member('cp-1', '10.10.1.11', true, { deleting: true })], T0 + 1_000);
  t.deepEqual([...dnsCalls(leaving), ...ipCalls(leaving)], []);
  const gone = mc({ controlPlaneVIP: VIP }, { deletionTimestamp: '2026-01-01T00:00:00Z' });
  const d1 = observed(leaving.state, gone, [member('cp-0', '10.10.1.10', true)], T0 + 2_000);
  t.deepEqual(ipCalls(d1), [], 'a machine may still hold the VIP');
  t.regex(d1.state.waiting ?? '', /before releasing the VIP/);
  const d2 = observed(d1.state, gone, [], T0 + 3_000);
  t.deepEqual(ipCalls(d2), [{ op: 'releaseVip', address: VIP.address }]);
  const failed = answer(d2, { kind: 'failed', message: '503 MAAS is busy', retryable: true }, T0 + 3_000);
  t.false(failed.effects.some((e) => e.type === 'removeFinalizer'));
  t.true(failed.effects.some((e) => e.type === 'event' && e.reason === 'VIPReleaseFailed'));
  t.regex(failed.state.lastError ?? '', /releasing the control-plane VIP failed/);
  const again = stepMaasCluster(failed.state, { type: 'tick' }, T0 + 4_000);
  t.deepEqual(ipCalls(again), [{ op: 'releaseVip', address: VIP.address }]);
  const done = answer(again, { kind: 'none' }, T0 + 4_000);
  t.true(done.effects.some((e) => e.type === 'removeFinalizer'));
  t.is(done.state.phase, 'gone');
  t.is(done.state.status.controlPlaneVIP, undefined);
});

test('maas cluster vip - a new owner deleting a cluster whose status lost the VIP finds the reservation by name and releases it', (t) => {
  const spec = { controlPlaneVIP: { subnet: VIP.subnet } };
  const gone = mc(spec, { deletionTimestamp: '2026-01-01T00:00:00Z' });
  const s0 = observed(initialMaasClusterState(gone), gone, []);
  t.deepEqual(ipCalls(s0), [{ op: 'findVip', fqdn: NAME, subnet: VIP.subnet }]);
  const found = answer(s0, { kind: 'vip', address: '10.10.1.2' });
  t.deepEqual(ipCalls(found), [{ op: 'releaseVip', address: '10.10.1.2' }]);
  const none = answer(observed(initialMaasClusterState(gone), gone, []), { kind: 'none' });
  t.true(none.effects.some((e) => e.type === 'removeFinalizer'));
});

// --- spec.apiServerInterface ---

const NICS: MachineNic[] = [
  { name: 'eth0', tags: [], addresses: [{ ip: '10.10.1.10', subnetCidr: '10.10.1.0/24', subnetName: 'pxe' }] },
  { name: 'eth1', tags: ['api'], addresses: [{ ip: '10.20.0.10', subnetCidr: '10.20.0.0/24', subnetName: 'api-net' }] },
];
const RECORD = { id: 7, fqdn: NAME, ips: [] as string[] };

function dnsActive(sel: Spec, machines: MaasMachine[]): MaasClusterStep {
  const spec = { apiServerInterface: sel };
  const s0 = observed(initialMaasClusterState(mc(spec)), mc(spec), machines);
  const c = s0.effects.find((e): e is Extract<MaasClusterEffect, { type: 'dns' }> => e.type === 'dns');
  if (!c) throw new Error('no DNS call');
  return stepMaasCluster(s0.state, { type: 'dnsResult', seq: c.seq, result: { kind: 'record', record: RECORD } }, T0);
}

for (const [how, sel] of [['name', { name: 'eth1' }], ['subnet CIDR', { subnet: '10.20.0.0/24' }], ['subnet name', { subnet: 'api-net' }], ['tag', { tag: 'api' }]] as const) {
  test(`maas cluster interface - by ${how}: the chosen NIC's address goes into the record, read from MAAS first`, (t) => {
    const a = dnsActive(sel, [member('cp-0', '10.10.1.10', true, { systemId: 'abc123' })]);
    t.deepEqual(ipCalls(a), [{ op: 'interfaces', systemId: 'abc123' }]);
    t.deepEqual(dnsCalls(a), []);
    const read = answer(a, { kind: 'interfaces', nics: NICS });
    t.deepEqual(dnsCalls(read), [{ op: 'update', id: 7, ips: ['10.20.0.10'] }]);
  });
}

test('maas cluster interface - no NIC matches: the address stays out and DNSAttached says which machine and what it has', (t) => {
  const a = dnsActive({ subnet: '10.1.0.0/24' }, [member('cp-0', '10.10.1.10', true, { systemId: 'abc123' })]);
  const read = answer(a, { kind: 'interfaces', nics: NICS });
  t.deepEqual(dnsCalls(read), []);
  const c = cond(read.state, 'DNSAttached');
  t.is(c?.status, 'False');
  t.is(c?.reason, 'NoMatchingInterface');
  t.is(c?.message, 'no interface of machine cp-0 (abc123) matches subnet 10.1.0.0/24; it has eth0 (10.10.1.10), eth1 (10.20.0.10; tags api)');
  t.is(cond(read.state, 'APIServerAvailable')?.status, 'False');
});

test('maas cluster interface - a deleting control-plane machine\'s chosen address leaves the record; the NICs are read again after resyncMs', (t) => {
  const machines = [member('cp-0', '10.10.1.10', true, { systemId: 'aaa111' }), member('cp-1', '10.10.1.11', true, { systemId: 'bbb222' })];
  const nics1: MachineNic[] = [NICS[0] as MachineNic, { name: 'eth1', tags: ['api'], addresses: [{ ip: '10.20.0.11', subnetCidr: '10.20.0.0/24' }] }];
  const a = dnsActive({ tag: 'api' }, machines);
  const r0 = answer(a, { kind: 'interfaces', nics: NICS });
  t.deepEqual(ipCalls(r0), [{ op: 'interfaces', systemId: 'bbb222' }]);
  const r1 = answer(r0, { kind: 'interfaces', nics: nics1 });
  t.deepEqual(dnsCalls(r1), [{ op: 'update', id: 7, ips: ['10.20.0.10', '10.20.0.11'] }]);
  const c = r1.effects.find((e): e is Extract<MaasClusterEffect, { type: 'dns' }> => e.type === 'dns');
  if (!c) throw new Error('no update');
  const both = stepMaasCluster(r1.state, { type: 'dnsResult', seq: c.seq, result: { kind: 'record', record: { ...RECORD, ips: ['10.20.0.10', '10.20.0.11'] } } }, T0);
  t.is(cond(both.state, 'DNSAttached')?.status, 'True');
  const leaving = observed(both.state, both.state.object, [machines[0] as MaasMachine, member('cp-1', '10.10.1.11', true, { systemId: 'bbb222', deleting: true })], T0 + 1_000);
  t.deepEqual(dnsCalls(leaving), [{ op: 'update', id: 7, ips: ['10.20.0.10'] }]);
  const stale = observed(both.state, both.state.object, machines, T0 + 30_000);
  // The record is read again first, then the NICs.
  const find = stale.effects.find((e): e is Extract<MaasClusterEffect, { type: 'dns' }> => e.type === 'dns');
  t.deepEqual(find?.call, { op: 'find', fqdn: NAME });
  const reread = stepMaasCluster(stale.state, { type: 'dnsResult', seq: find?.seq ?? 0, result: { kind: 'record', record: { ...RECORD, ips: ['10.20.0.10', '10.20.0.11'] } } }, T0 + 30_000);
  t.deepEqual(ipCalls(reread), [{ op: 'interfaces', systemId: 'aaa111' }]);
});

test('maas cluster - without a VIP or an interface choice nothing of this runs: the record is found as before', (t) => {
  const s0 = observed(initialMaasClusterState(mc({})), mc({}));
  t.deepEqual(ipCalls(s0), []);
  t.deepEqual(dnsCalls(s0), [{ op: 'find', fqdn: NAME }]);
});
