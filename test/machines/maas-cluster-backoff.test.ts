// The MaasCluster's backoff: the find before each create succeeds, and must not start it over.
import test from 'ava';
import { MaasCluster } from '../../src/api/index.ts';
import { initialMaasClusterState, stepMaasCluster } from '../../src/machines/maas-cluster/index.ts';
import type { DnsCallResult, MaasClusterEffect, MaasClusterState, MaasClusterStep } from '../../src/machines/maas-cluster/index.ts';
import { T0, capiCluster } from './maas-fixtures.ts';

const mc = () => MaasCluster.parse({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasCluster',
  metadata: { name: 'c1', namespace: 'default', uid: 'uid-c1', finalizers: ['maascluster.infrastructure.cluster.x-k8s.io'] }, spec: { dnsDomain: 'maas' },
});
const dnsCalls = (st: MaasClusterStep) => st.effects.flatMap((e) => (e.type === 'dns' ? [e.call] : []));
const answer = (st: MaasClusterStep, result: DnsCallResult, now: number) => {
  const c = st.effects.find((e): e is Extract<MaasClusterEffect, { type: 'dns' }> => e.type === 'dns');
  if (!c) throw new Error('no DNS call');
  return stepMaasCluster(st.state, { type: 'dnsResult', seq: c.seq, result }, now);
};
const waitOf = (s: MaasClusterState, now: number) => (s.retryAt ?? now) - now;

// A key that may not write DNS (403, capmaas.md §5 #86): controller-runtime's backoff grows; a
// retry every backoffBaseMs for ever is a create a second against MAAS per cluster.
test('maas cluster backoff - a create MAAS keeps refusing waits longer each time, though the find before it succeeds', (t) => {
  let now = T0;
  let st = stepMaasCluster(initialMaasClusterState(mc()), { type: 'observed', object: mc(), world: { cluster: capiCluster(), machines: [] } }, now);
  const waits: number[] = [];
  for (let i = 0; i < 3; i++) {
    t.is(dnsCalls(st)[0]?.op, 'find');
    st = answer(st, { kind: 'none' }, now);
    t.is(dnsCalls(st)[0]?.op, 'create');
    st = answer(st, { kind: 'failed', message: 'MAAS answered HTTP 403: This method is reserved for admin users.' }, now);
    waits.push(waitOf(st.state, now));
    now = st.state.retryAt ?? now;
    st = stepMaasCluster(st.state, { type: 'tick' }, now);
  }
  t.deepEqual(waits, [1_000, 2_000, 4_000]);
});

test('maas cluster backoff - the call that failed succeeding starts the backoff over', (t) => {
  let now = T0;
  let st = stepMaasCluster(initialMaasClusterState(mc()), { type: 'observed', object: mc(), world: { cluster: capiCluster(), machines: [] } }, now);
  st = answer(st, { kind: 'none' }, now);
  st = answer(st, { kind: 'failed', message: 'HTTP 403' }, now);
  now = st.state.retryAt ?? now;
  st = answer(stepMaasCluster(st.state, { type: 'tick' }, now), { kind: 'none' }, now);
  st = answer(st, { kind: 'record', record: { id: 7, fqdn: 'c1.maas', ips: [] } }, now);
  t.is(st.state.attempts, 0);
});
