import test from 'ava';
import { DependentsIndex } from '../../src/actors/shard/index.ts';
import type { IndexChange, Wakes } from '../../src/actors/shard/index.ts';
import type { KindObject } from '../../src/machines/kind.ts';
import { KINDS } from '../../src/machines/kinds.ts';

// The shard's one dependents index, built from what the kinds declare: whom a change wakes,
// answered from the links it has seen, never from a store.

const LABEL = 'cluster.x-k8s.io/cluster-name';

function object(name: string, o: { labels?: Record<string, string>; owner?: { kind: string; name: string }; spec?: Record<string, unknown> } = {}): KindObject {
  return {
    metadata: { namespace: 'capi', name, ...(o.labels ? { labels: o.labels } : {}), ...(o.owner ? { ownerReferences: [o.owner] } : {}) },
    ...(o.spec ? { spec: o.spec } : {}),
  };
}

const machine = (name: string, cluster: string, target: string, secret?: string): KindObject => object(name, {
  spec: { clusterName: cluster, infrastructureRef: { kind: 'MaasMachine', name: target }, bootstrap: secret ? { dataSecretName: secret } : {} },
});
const maasMachine = (name: string, cluster?: string): KindObject => object(name, cluster ? { labels: { [LABEL]: cluster } } : {});
const maasCluster = (name: string, cluster: string): KindObject => object(name, { owner: { kind: 'Cluster', name: cluster } });
const cluster = (name: string, infra?: string): KindObject => object(name, infra ? { spec: { infrastructureRef: { kind: 'MaasCluster', name: infra } } } : {});

const change = (kind: string, o: KindObject | string): IndexChange => (typeof o === 'string'
  ? { kind, key: o, object: null }
  : { kind, key: `${o.metadata.namespace}/${o.metadata.name}`, object: o });

function woken(wakes: Wakes): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [kind, keys] of wakes) if (keys.size > 0) out[kind] = [...keys].sort();
  return out;
}

// Two clusters in one namespace (one shard may hold both); b-worker-0 has no cluster label, so
// only its Machine says which cluster it is in.
function seeded(): DependentsIndex {
  const index = new DependentsIndex(KINDS);
  const feed: IndexChange[] = [
    change('Cluster', cluster('a', 'a')), change('Cluster', cluster('b', 'b')),
    change('Machine', machine('a-m0', 'a', 'a-worker-0', 'a-m0-bootstrap')),
    change('Machine', machine('b-m0', 'b', 'b-worker-0', 'b-m0-bootstrap')),
    change('MaasCluster', maasCluster('a', 'a')), change('MaasCluster', maasCluster('b', 'b')),
    change('MaasMachine', maasMachine('a-worker-0', 'a')), change('MaasMachine', maasMachine('b-worker-0')),
  ];
  for (const c of feed) index.apply(c);
  return index;
}

test('dependents index - a Machine change wakes exactly its MaasMachine', (t) => {
  const index = seeded();
  t.deepEqual(woken(index.apply(change('Machine', machine('a-m0', 'a', 'a-worker-0', 'a-m0-bootstrap')))), { MaasMachine: ['capi/a-worker-0'] });
  t.deepEqual(woken(index.apply(change('Machine', machine('b-m0', 'b', 'b-worker-0', 'b-m0-bootstrap')))), { MaasMachine: ['capi/b-worker-0'] });
});

test('dependents index - a Secret change wakes the machine whose bootstrap refers to it, and no other', (t) => {
  const index = seeded();
  t.deepEqual(woken(index.apply(change('Secret', object('b-m0-bootstrap')))), { MaasMachine: ['capi/b-worker-0'] });
  // A deletion carries only the key: enough for a Secret.
  t.deepEqual(woken(index.apply(change('Secret', 'capi/a-m0-bootstrap'))), { MaasMachine: ['capi/a-worker-0'] });
  t.deepEqual(woken(index.apply(change('Secret', object('unrelated')))), {});
});

test('dependents index - a Cluster change wakes its cluster\'s machines and MaasCluster, labelled or through their Machine', (t) => {
  const index = seeded();
  t.deepEqual(woken(index.apply(change('Cluster', cluster('a', 'a')))), { MaasMachine: ['capi/a-worker-0'], MaasCluster: ['capi/a'] });
  t.deepEqual(woken(index.apply(change('Cluster', cluster('b', 'b')))), { MaasMachine: ['capi/b-worker-0'], MaasCluster: ['capi/b'] });
  t.deepEqual([...index.dependentsOf('MaasCluster', maasCluster('a', 'a'), 'MaasMachine')], ['capi/a-worker-0'], 'a DNS change of MaasCluster a');
});

test('dependents index - a MaasMachine\'s change wakes its cluster\'s MaasCluster', (t) => {
  const index = seeded();
  t.deepEqual(woken(index.apply(change('MaasMachine', maasMachine('a-worker-0', 'a')))), { MaasCluster: ['capi/a'] });
  // Deleted: it is known by what it was linked by, so its cluster still hears of it.
  t.deepEqual(woken(index.apply(change('MaasMachine', 'capi/a-worker-0'))), { MaasCluster: ['capi/a'] });
  t.deepEqual(woken(index.apply(change('Cluster', cluster('a', 'a')))), { MaasCluster: ['capi/a'] }, 'and no machine of a is left');
});

test('dependents index - a Machine that names another MaasMachine wakes the one it left and the one it names', (t) => {
  const index = seeded();
  index.apply(change('MaasMachine', maasMachine('a-worker-1', 'a')));
  t.deepEqual(woken(index.apply(change('Machine', machine('a-m0', 'a', 'a-worker-1', 'a-m0-bootstrap')))), { MaasMachine: ['capi/a-worker-0', 'capi/a-worker-1'] });
  t.deepEqual(woken(index.apply(change('Secret', object('a-m0-bootstrap')))), { MaasMachine: ['capi/a-worker-1'] }, 'the bootstrap Secret follows the Machine');
  t.deepEqual(woken(index.apply(change('Machine', 'capi/a-m0'))), { MaasMachine: ['capi/a-worker-1'] }, 'deleted, it wakes the one it named');
  t.deepEqual(woken(index.apply(change('Secret', object('a-m0-bootstrap')))), {}, 'and its Secret no longer wakes anyone');
});

test('dependents index - a MaasMachine\'s Machine is found by owner reference or infrastructureRef, without a list', (t) => {
  const index = seeded();
  t.deepEqual([...index.sourcesOf('MaasMachine', 'capi/b-worker-0', 'Machine')], ['capi/b-m0']);
  index.apply(change('MaasMachine', object('owned', { owner: { kind: 'Machine', name: 'owner-m' } })));
  t.deepEqual([...index.sourcesOf('MaasMachine', 'capi/owned', 'Machine')], ['capi/owner-m']);
});

test('dependents index - names no kind: any declared kinds are joined alike, and undeclared kinds are not kept', (t) => {
  const forWidget = (g: KindObject): string[] => {
    const target = (g.spec as { for?: string } | undefined)?.for;
    return target ? [`${g.metadata.namespace}/${target}`] : [];
  };
  const index = new DependentsIndex([{ kind: 'Widget', dependents: { Gadget: [{ from: forWidget, to: (w) => [`${w.metadata.namespace}/${w.metadata.name}`] }] } }]);
  index.apply(change('Widget', object('w1')));
  index.apply(change('Widget', object('w2')));
  t.deepEqual(woken(index.apply(change('Gadget', object('g', { spec: { for: 'w2' } })))), { Widget: ['capi/w2'] });
  t.false(index.tracks('BareMetalHost'));
  t.is(index.apply(change('BareMetalHost', object('h'))).size, 0);
});
