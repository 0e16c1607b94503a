// Status writes for one object coalesce: a newer status replaces one still waiting its turn. A
// status asked for under another fence (an older actor of a shard that moved, still flushing)
// must not ride on the waiting write's fence: each is judged under its own.
import test from 'ava';
import { KubeCallError } from '../../src/adapters/kube/errors.ts';
import { ObjectWriter } from '../../src/adapters/kube/object-writer.ts';
import { ResourceCache } from '../../src/adapters/kube/resource-cache.ts';
import { RESOURCES } from '../../src/adapters/kube/resources.ts';
import { WriteLanes } from '../../src/adapters/kube/write-lanes.ts';
import { silentLogger, StaleFence } from '../../src/ports/index.ts';
import { deferred, waitFor } from '../support/wait.ts';
import { FakeServer } from './support/fake-client.ts';

const KEY = 'lab/h1';

test('object writer - a status under an older fence is not folded into a waiting write under a newer one', async (t) => {
  const server = new FakeServer();
  const stored = server.put({ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'h1', namespace: 'lab', annotations: { 'metalfleet.io/owner': '3/9/node-a' } }, spec: { online: true }, status: { state: 'registering' } });
  const cache = new ResourceCache(RESOURCES.BareMetalHost, silentLogger);
  cache.observe('add', stored);
  const gate = deferred();
  let sleeping = false;
  const writer = new ObjectWriter(RESOURCES.BareMetalHost, {
    client: server.client(), cache, lanes: new WriteLanes(), log: silentLogger, random: () => 0.5,
    sleep: async () => {
      sleeping = true;
      await gate.promise;
    },
  });
  // The first write meets a conflict and waits out its backoff: the lane is busy meanwhile.
  let conflicted = false;
  server.before = (r) => {
    if (r.verb === 'patch' && !conflicted) {
      conflicted = true;
      throw new KubeCallError('patch', 409, 'Conflict', 'the object has been modified');
    }
  };
  const newer = { shard: 3, epoch: 9, holder: 'node-a' };
  const older = { shard: 3, epoch: 5, holder: 'node-a' };
  const first = writer.writeStatus(KEY, { state: 'inspecting' }, newer);
  await waitFor(() => sleeping, 2_000, 'the first write backing off');
  const current = writer.writeStatus(KEY, { state: 'available' }, newer);
  const stale = writer.writeStatus(KEY, { state: 'deprovisioning' }, older);
  gate.resolve();
  await first;
  await current;
  await t.throwsAsync(stale, { instanceOf: StaleFence });
  t.deepEqual((server.objects.get(KEY) as { status?: unknown }).status, { state: 'available' });
});
