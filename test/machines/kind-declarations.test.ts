import test from 'ava';
import { hostBinding, type HostBindingDeps } from '../../src/actors/host/binding.ts';
import { maasBinding, type MaasBindingDeps } from '../../src/actors/maas/binding.ts';
import { BMH_KIND_DEFINITION } from '../../src/machines/bmh/kind.ts';
import { clusterKeyOf } from '../../src/machines/cluster-key.ts';
import type { DependentRule, KindObject } from '../../src/machines/kind.ts';
import { KINDS } from '../../src/machines/kinds.ts';
import { MAAS_CLUSTER_KIND_DEFINITION } from '../../src/machines/maas-cluster/kind.ts';
import { MAAS_MACHINE_KIND_DEFINITION } from '../../src/machines/maas-machine/kind.ts';

// What each kind.ts declares for the kind host, as pure data: its shard key and the links by
// which other objects' changes wake its objects (issue 29 point 2).

const LABEL = 'cluster.x-k8s.io/cluster-name';
const meta = (name: string, extra: Partial<KindObject['metadata']> = {}): KindObject['metadata'] => ({ namespace: 'capi', name, ...extra });
const values = (rules: readonly DependentRule[] | undefined, side: 'from' | 'to', o: KindObject): string[][] => (rules ?? []).map((r) => [...r[side](o)]);

test('kind declarations - a BareMetalHost is sharded by namespace/name and woken by nothing else', (t) => {
  t.is(BMH_KIND_DEFINITION.shardKey({ metadata: { namespace: 'lab', name: 'h-1' } }), 'lab/h-1');
  t.deepEqual(BMH_KIND_DEFINITION.dependents, {});
});

test('kind declarations - the MAAS kinds are sharded by namespace/cluster, from label, owner or Machine', (t) => {
  t.is(MAAS_MACHINE_KIND_DEFINITION.shardKey({ metadata: meta('w0', { labels: { [LABEL]: 'demo' } }) }), 'capi/demo');
  t.is(MAAS_MACHINE_KIND_DEFINITION.shardKey({ metadata: meta('w0') }), 'capi/w0', 'no label: its own name');
  t.is(MAAS_CLUSTER_KIND_DEFINITION.shardKey({ metadata: meta('mc', { ownerReferences: [{ kind: 'Cluster', name: 'demo' }] }) }), 'capi/demo');
  t.is(MAAS_CLUSTER_KIND_DEFINITION.shardKey({ metadata: meta('demo') }), 'capi/demo');
  t.is(clusterKeyOf('Machine', { metadata: meta('m0'), spec: { clusterName: 'demo' } }), 'capi/demo');
  t.is(clusterKeyOf('Machine', { metadata: meta('m0', { labels: { [LABEL]: 'other' } }) }), 'capi/other');
  t.is(clusterKeyOf('Cluster', { metadata: meta('demo') }), 'capi/demo');
});

test('kind declarations - a MaasMachine is linked to its Machine by infrastructureRef and owner, to its Secret through that Machine', (t) => {
  const d = MAAS_MACHINE_KIND_DEFINITION.dependents;
  const machine: KindObject = { metadata: meta('m0'), spec: { clusterName: 'demo', infrastructureRef: { kind: 'MaasMachine', name: 'w0' }, bootstrap: { dataSecretName: 'm0-boot' } } };
  t.deepEqual(values(d['Machine'], 'from', machine), [['capi/w0'], ['capi/m0']]);
  t.deepEqual(values(d['Machine'], 'to', { metadata: meta('w0', { ownerReferences: [{ kind: 'Machine', name: 'm0' }] }) }), [['capi/w0'], ['capi/m0']]);
  const secret = d['Secret']?.[0];
  t.deepEqual(secret?.via && [[...secret.via.to(machine)], [...secret.via.from(machine)]], [['capi/m0-boot'], ['capi/w0']]);
  t.deepEqual(values(d['Cluster'], 'to', { metadata: meta('w0', { labels: { [LABEL]: 'demo' } }) }), [['capi/demo'], ['capi/w0']]);
  t.deepEqual(values(d['MaasCluster'], 'from', { metadata: meta('mc', { ownerReferences: [{ kind: 'Cluster', name: 'demo' }] }) }), [['capi/demo'], ['capi/demo']]);
});

test('kind declarations - a MaasCluster is linked to its Cluster (also as its infrastructure) and to its machines by cluster', (t) => {
  const d = MAAS_CLUSTER_KIND_DEFINITION.dependents;
  const cluster: KindObject = { metadata: meta('demo'), spec: { infrastructureRef: { kind: 'MaasCluster', name: 'demo-infra' } } };
  t.deepEqual(values(d['Cluster'], 'from', cluster), [['capi/demo'], ['capi/demo-infra']]);
  t.deepEqual(values(d['Cluster'], 'to', { metadata: meta('demo-infra', { labels: { [LABEL]: 'demo' } }) }), [['capi/demo'], ['capi/demo-infra']]);
  t.deepEqual(values(d['MaasMachine'], 'from', { metadata: meta('w0', { labels: { [LABEL]: 'demo' } }) }), [['capi/demo'], ['capi/demo']]);
});

test('kind declarations - every link is total over a key alone, as a deletion leaves it', (t) => {
  const bare: KindObject = { metadata: meta('gone') };
  for (const k of KINDS) {
    t.true(typeof k.shardKey(bare) === 'string');
    for (const rules of Object.values(k.dependents)) {
      for (const r of rules) {
        t.notThrows(() => [r.from(bare), r.to(bare), r.via?.to(bare), r.via?.from(bare)], `${k.kind}`);
      }
    }
  }
});

test('kind declarations - every kind names a binding the node has, and every binding hosts a kind', (t) => {
  // The bindings only keep their deps until a shard opens them: none is used here.
  const bindings = [hostBinding({} as HostBindingDeps), maasBinding({} as MaasBindingDeps)].map((b) => b.name);
  for (const k of KINDS) t.true(bindings.includes(k.binding), `${k.kind} names binding ${k.binding}; the bindings are ${bindings.join(', ')}`);
  t.deepEqual([...new Set(KINDS.map((k) => k.binding))].sort(), [...bindings].sort());
});
