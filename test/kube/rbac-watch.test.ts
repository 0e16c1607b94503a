// A watch refused by RBAC: client-node's watch drops the 403's body, so the informer's error is
// only the code. The error must still say which verb on which resource the ClusterRole lacks.
import test from 'ava';
import { startSystem } from '../../src/actors/runtime/index.ts';
import { createKubeAdapter } from '../../src/adapters/kube/index.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { waitFor } from '../support/wait.ts';
import { startApi } from './support/kube-node.ts';

test('kube rbac - a watch refused with 403 names the verb and resource the ClusterRole lacks', async (t) => {
  const api = await startApi();
  t.teardown(() => api.close());
  api.failNext({ verb: 'watch', resource: 'secrets', status: 403, times: 1_000 });
  const system = startSystem({ name: 'kube-rbac-watch', onError: () => undefined });
  const adapter = createKubeAdapter({ kubeConfig: api.kubeConfig(), log: silentLogger, nodeName: 'a' });
  t.teardown(async () => {
    await adapter.close();
    system.stop();
  });
  void adapter.start(system).catch(() => undefined);
  const secrets = () => adapter.informers().find((i) => i.resource === 'Secret');
  await waitFor(() => (secrets()?.errors ?? 0) > 0, 10_000, 'the Secret informer failed');
  const error = secrets()?.lastError ?? '';
  t.regex(error, /403/);
  t.regex(error, /watch core\/secrets/, 'names the missing permission');
  t.notRegex(error, /may not this/);
});
