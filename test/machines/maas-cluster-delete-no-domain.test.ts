// A deleting MaasCluster whose MAAS DNS domain is gone (capmaas.md §3.2, DNS list: 404 "No Domain
// matches the given query."): the record cannot exist, so its deletion is done and the finalizer
// comes off. Any other failure (5xx, 403) is retried as before, and outside deletion a missing
// domain stays a failure.
import test from 'ava';
import { MaasCluster } from '../../src/api/index.ts';
import { initialMaasClusterState, stepMaasCluster } from '../../src/machines/maas-cluster/index.ts';
import type { DnsCallResult, MaasClusterEffect, MaasClusterState, MaasClusterStep } from '../../src/machines/maas-cluster/index.ts';
import { T0, capiCluster } from './maas-fixtures.ts';

const FINALIZER = 'maascluster.infrastructure.cluster.x-k8s.io';
const NAME = 'c1-abcdef.gone.example';
const mc = (meta: Record<string, unknown> = {}) => MaasCluster.parse({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasCluster',
  metadata: { name: 'c1', namespace: 'default', uid: 'uid-c1', finalizers: [FINALIZER], ...meta },
  spec: { dnsDomain: 'gone.example' },
  status: { ready: true, network: { dnsName: NAME } },
});
const DELETING = mc({ deletionTimestamp: '2026-01-01T00:00:00Z' });
const observed = (s: MaasClusterState, o = s.object) => stepMaasCluster(s, { type: 'observed', object: o, world: { cluster: capiCluster(), machines: [] } }, T0);
const dnsCalls = (st: MaasClusterStep) => st.effects.flatMap((e) => (e.type === 'dns' ? [e.call] : []));
const answer = (st: MaasClusterStep, result: DnsCallResult) => {
  const c = st.effects.find((e): e is Extract<MaasClusterEffect, { type: 'dns' }> => e.type === 'dns');
  if (!c) throw new Error('no DNS call');
  return stepMaasCluster(st.state, { type: 'dnsResult', seq: c.seq, result }, T0);
};
const NO_DOMAIN: DnsCallResult = { kind: 'failed', reason: 'domainNotFound', message: 'GET /dnsresources/ answered 404: No Domain matches the given query.' };
const events = (st: MaasClusterStep) => st.effects.flatMap((e) => (e.type === 'event' ? [e] : []));

test('maas cluster deletion - a DNS domain MAAS no longer has means no record: the finalizer comes off, said at info with the domain', (t) => {
  const looking = observed(initialMaasClusterState(DELETING));
  t.deepEqual(dnsCalls(looking), [{ op: 'find', fqdn: NAME }]);
  const done = answer(looking, NO_DOMAIN);
  t.true(done.state.gone);
  t.is(done.state.phase, 'gone');
  t.deepEqual(done.effects.filter((e) => e.type === 'removeFinalizer'), [{ type: 'removeFinalizer', finalizer: FINALIZER }]);
  t.deepEqual(done.effects.filter((e) => e.type === 'requeue'), []);
  const said = events(done);
  t.true(said.length > 0 && said.every((e) => e.severity === 'Normal'), JSON.stringify(said));
  t.true(said.some((e) => e.message.includes('gone.example') && e.message.includes(NAME)), JSON.stringify(said));
});

test('maas cluster deletion - a record whose domain went meanwhile: its delete counts as done', (t) => {
  const active = answer(observed(initialMaasClusterState(mc())), { kind: 'record', record: { id: 7, fqdn: NAME, ips: [] } });
  t.is(active.state.phase, 'active');
  const deleting = observed(active.state, DELETING);
  t.deepEqual(dnsCalls(deleting), [{ op: 'delete', id: 7 }]);
  const done = answer(deleting, NO_DOMAIN);
  t.true(done.state.gone);
  t.deepEqual(done.effects.filter((e) => e.type === 'removeFinalizer'), [{ type: 'removeFinalizer', finalizer: FINALIZER }]);
  t.true(events(done).some((e) => e.severity === 'Normal' && e.message.includes('gone.example')));
});

for (const [what, result] of [
  ['MAAS down (503)', { kind: 'failed', message: 'GET /dnsresources/ answered 503' }],
  ['a key that may not (403)', { kind: 'failed', message: 'GET /dnsresources/ answered 403' }],
] as const) {
  test(`maas cluster deletion - ${what} is retried with backoff; the finalizer stays`, (t) => {
    const looking = observed(initialMaasClusterState(DELETING));
    const failed = answer(looking, result);
    t.false(failed.state.gone);
    t.is(failed.state.phase, 'deleting');
    t.deepEqual(failed.effects.filter((e) => e.type === 'removeFinalizer'), []);
    t.deepEqual(failed.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 1_000 }]);
    t.true(events(failed).some((e) => e.severity === 'Warning'));
    // And again once the backoff is over.
    const again = stepMaasCluster(failed.state, { type: 'tick' }, T0 + 1_000);
    t.deepEqual(dnsCalls(again), [{ op: 'find', fqdn: NAME }]);
  });
}

test('maas cluster - outside deletion a missing DNS domain stays a failure: no record is created, it is retried', (t) => {
  const looking = observed(initialMaasClusterState(mc({ status: undefined })));
  const failed = answer(looking, NO_DOMAIN);
  t.false(failed.state.gone);
  t.not(failed.state.phase, 'gone');
  t.deepEqual(dnsCalls(failed), []);
  t.deepEqual(failed.effects.filter((e) => e.type === 'removeFinalizer'), []);
  t.true(failed.effects.some((e) => e.type === 'requeue'));
  t.true(events(failed).some((e) => e.severity === 'Warning'));
});
