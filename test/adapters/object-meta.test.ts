// One object-metadata schema (api/meta.ts ObjectMeta inside ApiObject) for both ways a Cluster
// API object reaches the MAAS actors: parsed from the API server (kube/parse-object.ts) or kept
// in the KV object store (embedded default, NATS cluster). They must hand out the same metadata:
// the namespace defaulted as the API server defaults it, owner references kept, bad ones refused
// at the same field.
import test from 'ava';
import { parseStoredObject } from '../../src/adapters/kube/parse-object.ts';
import { parseRaw } from '../../src/adapters/kube/raw-object.ts';
import { openKvStoreOn } from '../../src/adapters/store/index.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import type { StoredObject } from '../../src/ports/index.ts';

const OWNER = { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', name: 'worker-0', uid: 'b7f3c1d2', controller: true, blockOwnerDeletion: true };

// No namespace: `kubectl apply` of such a manifest lands in "default".
const machine = (owners: readonly unknown[]) => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine',
  metadata: { name: 'worker-0', labels: { 'cluster.x-k8s.io/cluster-name': 'demo' }, ownerReferences: owners },
  spec: { minCPU: 1, minMemory: 1024, image: 'ubuntu/jammy' },
});

function fromKube(o: unknown): ReturnType<typeof parseStoredObject> {
  const raw = parseRaw(o);
  if (!raw.ok) throw new Error(raw.problems.join('; '));
  return parseStoredObject(raw.value);
}

async function openObjects(t: { teardown(fn: () => unknown): void }) {
  const transport = createMemoryBus().connect('meta');
  const objects = await openKvStoreOn(transport, { hosts: false });
  t.teardown(async () => {
    await objects.close();
    await transport.close();
  });
  return objects;
}

// What the store assigns (identity, creation time, generation, revision) is not the manifest's metadata.
function manifestMeta(o: StoredObject): Record<string, unknown> {
  const { uid: _uid, creationTimestamp: _created, generation: _generation, resourceVersion: _rv, ...rest } = o.metadata as StoredObject['metadata'] & { resourceVersion?: string; creationTimestamp?: string };
  return rest;
}

test('object meta - the Kubernetes parser and the KV object store agree on an object with ownerReferences and no namespace', async (t) => {
  const parsed = fromKube(machine([OWNER]));
  if (!parsed.ok) return t.fail(parsed.problems.join('; '));
  const objects = await openObjects(t);
  const applied = await objects.apply([machine([OWNER])]);
  t.deepEqual(applied.objects, [{ kind: 'MaasMachine', key: 'default/worker-0' }]);
  const stored = await objects.get('MaasMachine', 'default/worker-0');
  if (!stored) return t.fail('the KV store has no default/worker-0');

  t.is(parsed.value.metadata.namespace, 'default');
  t.is(stored.metadata.namespace, 'default');
  t.deepEqual(parsed.value.metadata.ownerReferences, [OWNER], 'every field of the owner reference is kept');
  t.deepEqual(stored.metadata.ownerReferences, [OWNER]);
  t.deepEqual(manifestMeta(stored), manifestMeta(parsed.value));
  t.deepEqual(stored.spec, parsed.value.spec);
});

test('object meta - an owner reference without a kind is refused by both, at the same field', async (t) => {
  const bad = machine([{ apiVersion: 'cluster.x-k8s.io/v1beta1', name: 'worker-0' }]);
  const parsed = fromKube(bad);
  t.false(parsed.ok);
  const problems = parsed.ok ? [] : parsed.problems;
  t.is(problems.length, 1);
  t.regex(problems[0] ?? '', /^metadata\.ownerReferences\[0\]\.kind: /);

  const objects = await openObjects(t);
  const applied = await objects.apply([bad]);
  t.false(applied.ok);
  t.deepEqual(applied.issues.map((i) => `${i.kind} ${i.key} ${i.path}`), ['MaasMachine default/worker-0 metadata.ownerReferences[0].kind']);
  t.deepEqual(await objects.list('MaasMachine'), [], 'nothing written');
});

test('object meta - the KV object store stamps creation and deletion as the host records and the API server do: whole-second RFC 3339, creation kept by later applies', async (t) => {
  const objects = await openObjects(t);
  const RFC3339_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
  const given = { ...machine([]), metadata: { ...machine([]).metadata, creationTimestamp: '2001-01-01T00:00:00Z' } };
  t.true((await objects.apply([given])).ok);
  // The port's metadata type names no creation time; the stored object carries it (api/meta.ts).
  const createdOf = async (): Promise<string | undefined> => ((await objects.get('MaasMachine', 'default/worker-0'))?.metadata as { creationTimestamp?: string } | undefined)?.creationTimestamp;
  const created = await createdOf();
  t.regex(created ?? '', RFC3339_SECONDS);
  t.not(created, '2001-01-01T00:00:00Z', 'the manifest does not set the creation time');
  t.true((await objects.apply([{ ...machine([]), spec: { ...machine([]).spec, image: 'ubuntu/noble' } }])).ok);
  t.is(await createdOf(), created);
  await objects.addFinalizer('MaasMachine', 'default/worker-0', 'maasmachine.infrastructure.cluster.x-k8s.io');
  t.is(await objects.requestDelete('MaasMachine', 'default/worker-0'), 'terminating');
  t.regex((await objects.get('MaasMachine', 'default/worker-0'))?.metadata.deletionTimestamp ?? '', RFC3339_SECONDS);
});
