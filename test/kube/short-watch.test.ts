// A watch the API server (or a proxy in front of it) ends cleanly right after it opened, again
// and again: client-node's informer re-watches at once, without a backoff, forever. As client-go's
// reflector counts a "very short watch" as a failure, the adapter backs off.
import test from 'ava';
import { startSystem } from '../../src/actors/runtime/index.ts';
import { createKubeAdapter } from '../../src/adapters/kube/index.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { waitFor } from '../support/wait.ts';
import { startApi } from './support/kube-node.ts';

test('kube watch - watches that keep ending at once without an event are backed off, not re-opened in a tight loop', async (t) => {
  // Every watch ends cleanly after 100 ms: ten re-watches a second, below the 20-per-second loop guard.
  const api = await startApi({ watchTimeoutSeconds: 0.1 });
  t.teardown(() => api.close());
  const system = startSystem({ name: 'kube-short-watch', onError: () => undefined });
  const adapter = createKubeAdapter({ kubeConfig: api.kubeConfig(), log: silentLogger, nodeName: 'a' });
  t.teardown(async () => {
    await adapter.close();
    system.stop();
  });
  await adapter.start(system);
  const hosts = () => adapter.informers().find((i) => i.resource === 'BareMetalHost');
  // Thirty watches: three seconds of re-watching at once, or longer with a backoff after twenty.
  await api.waitForRequests({ verb: 'watch', resource: 'baremetalhosts' }, 30, 30_000);
  t.true((hosts()?.errors ?? 0) > 0, 'the short watches count as failures');
  t.regex(hosts()?.lastError ?? '', /watch ended .* without an event/);
  await waitFor(() => hosts()?.phase === 'watching', 30_000, 'watching again after the backoff');
});
