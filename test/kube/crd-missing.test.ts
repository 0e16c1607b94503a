// A CRD that is not installed: the API server answers the informer's list with a plain-text
// 404 (reference/kube-api.md §1). The informer's error must name the CRD and how to install it.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { parseAllDocuments } from 'yaml';
import { startSystem } from '../../src/actors/runtime/index.ts';
import { createKubeAdapter } from '../../src/adapters/kube/index.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { startKubeApi } from '../support/kube-api/index.ts';
import { waitFor } from '../support/wait.ts';

const CAPI = fileURLToPath(new URL('./fixtures/crds/capi.yaml', import.meta.url));

test('kube crd - a BareMetalHost CRD not installed is reported by name with how to install it', async (t) => {
  // Only the Cluster API CRDs: no metal3.io at all.
  const crds = parseAllDocuments(await readFile(CAPI, 'utf8')).map((d) => d.toJS() as object);
  const api = await startKubeApi({ crds, watchTimeoutSeconds: 5 });
  t.teardown(() => api.close());
  const system = startSystem({ name: 'kube-crd-missing', onError: () => undefined });
  const adapter = createKubeAdapter({ kubeConfig: api.kubeConfig(), log: silentLogger, nodeName: 'a' });
  t.teardown(async () => {
    await adapter.close();
    system.stop();
  });
  void adapter.start(system).catch(() => undefined);
  const bmhInformer = () => adapter.informers().find((i) => i.resource === 'BareMetalHost');
  await waitFor(() => (bmhInformer()?.errors ?? 0) > 0, 10_000, 'the host informer failed');
  const error = bmhInformer()?.lastError ?? '';
  t.regex(error, /baremetalhosts\.metal3\.io/, 'names the CRD');
  t.regex(error, /not installed/);
  t.regex(error, /kubectl apply/, 'says how to install it');
  t.regex(error, /deploy\/crds/);
  t.false(adapter.isSynced);
  // Not a crash loop: the informer backs off.
  t.like(bmhInformer(), { phase: 'backoff' });
});
