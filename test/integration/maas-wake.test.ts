import test from 'ava';
import { maasBinding, maasMachineWakes } from '../../src/actors/maas/binding.ts';
import type { CapacityMsg } from '../../src/actors/capacity/index.ts';
import { spawn, startSystem, systemClock, tell } from '../../src/actors/runtime/index.ts';
import type { ActorRef, ActorSystem, Behavior } from '../../src/actors/runtime/index.ts';
import { DependentsIndex } from '../../src/actors/shard/index.ts';
import type { KindActors, KindActorsSpec, ShardScope } from '../../src/actors/shard/index.ts';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import { KINDS } from '../../src/machines/kinds.ts';
import { DEFAULT_MAAS_MACHINE_CONFIG } from '../../src/machines/maas-machine/index.ts';
import type { MaasDriver, ObjectKind, ResourceEvent, ResourceStore, StoredObject } from '../../src/ports/index.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { startMaasNode } from '../support/maas-node.ts';
import { waitFor, waitUntil } from '../support/wait.ts';

// Issue 29.2: a MaasMachine wake-up builds its world from what its shard's router has seen and
// reads the store only for the bootstrap Secret; who a change wakes is answered from that index.

/** Counts the get/list calls made on a store, by kind; `raw` reads around the counter. */
function countReads(store: ResourceStore): { byKind: Map<string, number>; total(): number; raw: Pick<ResourceStore, 'get' | 'list'> } {
  const get = store.get.bind(store);
  const list = store.list.bind(store);
  const getSecret = store.getSecret.bind(store);
  const byKind = new Map<string, number>();
  const count = (what: string): void => void byKind.set(what, (byKind.get(what) ?? 0) + 1);
  store.get = (kind, key) => { count(`get ${kind}`); return get(kind, key); };
  store.list = (kind) => { count(`list ${kind}`); return list(kind); };
  store.getSecret = (ns, name) => { count('get Secret'); return getSecret(ns, name); };
  return { byKind, total: () => [...byKind.values()].reduce((a, b) => a + b, 0), raw: { get, list } };
}

test('maas wake - a MaasMachine woken by its Machine changing reads the store at most once', async (t) => {
  // No steady poll: the only wake-ups in the window are the ones the changes below cause.
  const it = await startMaasNode({ config: { steadyPollMs: 3_600_000 } });
  t.teardown(() => it.stop());
  const cluster = generateMaasCluster({ controlPlane: 1, workers: 1 });
  t.true((await it.apply(cluster)).ok);
  const reads = countReads(it.store);
  const ready = async (): Promise<boolean> => (await reads.raw.list('MaasMachine')).every((m) => (m.status as { ready?: boolean } | undefined)?.ready === true);
  await waitUntil(ready, 20_000, 'both MaasMachines ready');
  reads.byKind.clear();
  const before = maasMachineWakes();
  // The Machine changes, then its bootstrap Secret: one wake-up each, in that order in the
  // machine's mailbox. Whether the Secret holds data is known from the last read until it
  // changes, so the second wake-up reads it once, and the first has finished by then.
  t.true(await it.store.patchAnnotations('Machine', 'capi/demo-worker-0', { 'example.com/touched': 'yes' }));
  const secret = cluster.find((o) => (o as StoredObject).kind === 'Secret' && (o as StoredObject).metadata.name === 'demo-worker-0-bootstrap') as StoredObject & { stringData: Record<string, string> };
  t.true((await it.apply([{ ...secret, stringData: { ...secret.stringData, value: `${secret.stringData['value'] ?? ''}# touched\n` } }])).ok);
  await waitFor(() => (reads.byKind.get('get Secret') ?? 0) >= 1, 10_000, 'the Secret change read');
  const wakes = maasMachineWakes() - before;
  t.true(wakes >= 2, `wake-ups: ${wakes}`);
  t.true(reads.total() <= wakes / 2, `store reads ${reads.total()} for ${wakes} wake-up(s): ${JSON.stringify([...reads.byKind])}`);
  t.deepEqual([...reads.byKind], [['get Secret', 1]], 'the MaasMachine, Machine, Cluster and MaasCluster come from the index');
});

// A recording actor stands in for each MaasMachine and MaasCluster actor: the router under test
// decides who is told what, and that is all this test looks at.
type Seen = { readonly kind: string; readonly key: string; readonly msg: string };
const SENTINEL = 'sentinel';

function recorderScope(system: ActorSystem, log: Seen[], index: DependentsIndex): ShardScope {
  let n = 0;
  return {
    index,
    shard: 0,
    fence: { shard: 0, epoch: 1, holder: 'test' },
    later: (work) => void work(),
    actors<S, M>(spec: KindActorsSpec<S, M>): KindActors<M> {
      const refs = new Map<string, ActorRef<M>>();
      const recorder = (key: string): Behavior<null, M> => ({
        kind: 'recorder', init: () => null,
        receive: (s, msg) => { log.push({ kind: spec.kind, key, msg: (msg as { type: string }).type }); return s; },
      });
      return {
        get: (key) => refs.get(key),
        ensure(key) {
          const ref = refs.get(key) ?? spawn(system, `rec-${++n}`, recorder(key));
          refs.set(key, ref);
          return ref;
        },
        stop: (key) => void refs.delete(key),
        gone: (key) => void refs.delete(key),
        entries: () => refs.entries(),
        get size() { return refs.size; },
      };
    },
  };
}

const upsert = (object: unknown): ResourceEvent<ObjectKind> & { type: 'upsert' } => {
  const o = object as StoredObject & { kind: ObjectKind };
  return { type: 'upsert', kind: o.kind, key: `${o.metadata.namespace}/${o.metadata.name}`, object: o, change: 'spec' };
};

test('maas wake - a Cluster change wakes exactly its MaasCluster and MaasMachines, with no store read', async (t) => {
  const system = startSystem({ name: 'maas-wake' });
  t.teardown(() => system.stop());
  const calls: string[] = [];
  // Every store read fails the test: after the seed, the router answers from what it has seen.
  const store = new Proxy({} as ResourceStore, { get: (_t, prop) => (...args: unknown[]) => { calls.push(`${String(prop)} ${JSON.stringify(args)}`); return Promise.resolve(undefined); } });
  const binding = maasBinding({
    // Neither is called by the router itself: the recorders stand in for the actors that would.
    store, driverFor: () => ({}) as MaasDriver, broker: {} as ActorRef<CapacityMsg>,
    clock: systemClock, log: silentLogger, config: DEFAULT_MAAS_MACHINE_CONFIG, grantTtlMs: 1_000, clusterResyncMs: 60_000,
  });
  const log: Seen[] = [];
  // The shard's dependents index, fed each event before the router hears it, as the shard does.
  const index = new DependentsIndex(KINDS);
  const router = binding.open(recorderScope(system, log, index));
  const feed = (e: ResourceEvent<ObjectKind>): void | Promise<void> => {
    const change = binding.indexed?.(e);
    return router.event(e, change ? index.apply(change) : new Map());
  };
  // Two clusters in one namespace (one shard may hold both): the seed listing, as the kind host feeds it.
  const objects = [...generateMaasCluster({ cluster: 'a', controlPlane: 1, workers: 1 }), ...generateMaasCluster({ cluster: 'b', controlPlane: 1, workers: 1 })]
    .filter((o) => (o as { kind: string }).kind !== 'Secret');
  const order: readonly string[] = ['Cluster', 'Machine', 'MaasCluster', 'MaasMachine'];
  for (const kind of order) for (const o of objects) if ((o as { kind: string }).kind === kind) await feed(upsert(o));
  // Either kind's recorder takes a sentinel: only the message's type is looked at.
  const actors = [...['capi/a', 'capi/b'].map((k) => router.cluster(k)), ...['a-cp-0', 'a-worker-0', 'b-cp-0', 'b-worker-0'].map((k) => router.machine(`capi/${k}`))] as ReadonlyArray<ActorRef<{ type: string }> | undefined>;
  t.true(actors.every((ref) => ref !== undefined), 'the seed spawned every actor');
  // Drain what the seed told, so only the Cluster change's messages are counted after it.
  const settle = async (): Promise<void> => {
    const mark = log.length;
    for (const ref of actors) if (ref) tell(ref, { type: SENTINEL });
    await waitFor(() => log.slice(mark).filter((s) => s.msg === SENTINEL).length === actors.length, 5_000, 'every actor took its sentinel');
  };
  await settle();
  log.length = 0;
  const clusterA = objects.find((o) => (o as StoredObject).kind === 'Cluster' && (o as StoredObject).metadata.name === 'a') as StoredObject;
  await feed({ ...upsert(clusterA), object: { ...clusterA, metadata: { ...clusterA.metadata, annotations: { 'cluster.x-k8s.io/paused': '' } } } });
  await settle();
  const woken = log.filter((s) => s.msg !== SENTINEL).map((s) => `${s.kind} ${s.key} ${s.msg}`).sort();
  t.deepEqual(woken, ['MaasCluster capi/a tick', 'MaasMachine capi/a-cp-0 tick', 'MaasMachine capi/a-worker-0 tick']);
  t.deepEqual(calls, [], 'no store read: who a Cluster change wakes comes from the index');
});
