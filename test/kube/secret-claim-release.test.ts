// Lifting the last finalizer of a Secret being deleted deletes it (reference/kube-api.md §7): the
// PATCH answers with the submitted object, and the watch may tell DELETED before or after that
// answer. Either way the cache must not keep the deleted Secret as if it were still there.
import test from 'ava';
import { startSystem } from '../../src/actors/runtime/index.ts';
import { createKubeAdapter } from '../../src/adapters/kube/index.ts';
import { SECRET_FINALIZER } from '../../src/adapters/kube/secret-claim.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { bmh, secret } from '../support/node.ts';
import { waitFor, waitUntil } from '../support/wait.ts';
import type { KubeObject } from '../support/kube-api/index.ts';
import { startApi } from './support/kube-node.ts';

test('secret claim - the Secret its released finalizer deleted leaves the cache at once, without waiting for the watch', async (t) => {
  const api = await startApi();
  t.teardown(() => api.close());
  const ref = (resource: string, name: string) => ({ resource, namespace: 'lab', name });
  api.create(secret('bmc', 'lab', { username: 'admin', password: 'Sup3rS3cret!' }) as KubeObject);
  api.create(bmh('h1') as KubeObject);
  const system = startSystem({ name: 'kube-secret-release', onError: () => undefined });
  const adapter = createKubeAdapter({ kubeConfig: api.kubeConfig(), log: silentLogger, nodeName: 'a' });
  t.teardown(async () => {
    await adapter.close();
    system.stop();
  });
  const secretEvents: string[] = [];
  adapter.store.watch((e) => secretEvents.push(`${e.type} ${e.key}`), { kinds: ['Secret'] });
  await adapter.start(system);
  const finalizers = () => (api.get(ref('secrets', 'bmc')) as { metadata: { finalizers?: string[] } } | undefined)?.metadata.finalizers;
  await waitUntil(() => finalizers()?.includes(SECRET_FINALIZER) === true, 10_000, 'the BMC Secret claimed');
  // The claim and then the delete reach the cache by the watch.
  await waitFor(() => secretEvents.filter((e) => e === 'upsert lab/bmc').length >= 2, 10_000, 'the claim seen');
  const seen = secretEvents.length;
  api.delete(ref('secrets', 'bmc'));
  await waitFor(() => secretEvents.length > seen, 10_000, 'the terminating Secret seen');
  // From now on the Secrets' watch tells nothing: only the claimer's own answer can.
  api.failNext({ verb: 'watch', resource: 'secrets', status: 500, times: 1_000 });
  api.dropWatches({ resource: 'secrets' });
  api.delete(ref('baremetalhosts', 'h1'));
  await waitUntil(() => api.get(ref('secrets', 'bmc')) === undefined, 10_000, 'the Secret deleted once its finalizer was lifted');
  await waitUntil(async () => (await adapter.store.getSecret('lab', 'bmc')) === undefined, 3_000, 'the deleted Secret gone from the cache');
  t.true(secretEvents.includes('deleted lab/bmc'));
});
