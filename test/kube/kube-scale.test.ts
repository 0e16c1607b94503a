// 500 BareMetalHosts applied at once to Kubernetes, driven to provisioned by one embedded node
// with the fixture backend. Status writes are coalesced per host: at most one per state change.
import test from 'ava';
import { bmh, secret } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';
import type { KubeObject } from '../support/kube-api/index.ts';
import { startApi, startKubeNode, stateOf } from './support/kube-node.ts';

const HOSTS = 500;
// '' -> registering -> inspecting -> preparing -> available -> provisioning -> provisioned
const STATE_CHANGES = 6;

test('kube scale - 500 hosts applied at once reach provisioned with at most one status write per state change', async (t) => {
  // Minutes on a loaded 2-core machine (the whole suite beside it); seconds alone.
  t.timeout(300_000);
  const api = await startApi();
  const it = await startKubeNode(api);
  try {
    const started = performance.now();
    api.create(secret('bmc', 'lab') as KubeObject);
    const keys: string[] = [];
    for (let i = 0; i < HOSTS; i++) {
      api.create(bmh(`s-${i}`) as KubeObject);
      keys.push(`lab/s-${i}`);
    }
    await waitUntil(() => it.node.stats.count('provisioned') === HOSTS, 100_000, `${HOSTS} hosts provisioned`, 100);
    // The node's view is what it wrote; the server must hold the same.
    await waitUntil(() => keys.every((k) => stateOf(api, k) === 'provisioned'), 90_000, 'every status in the API server says provisioned', 100);
    const seconds = (performance.now() - started) / 1000;
    const perHost = keys.map((k) => {
      const [namespace, name] = k.split('/') as [string, string];
      return api.statusWrites({ resource: 'baremetalhosts', namespace, name });
    });
    const attempts = perHost.reduce((n, w) => n + w.attempts, 0);
    const changed = perHost.reduce((n, w) => n + w.changed, 0);
    const most = Math.max(...perHost.map((w) => w.attempts));
    const conflicts = api.requests({ resource: 'baremetalhosts', code: 409 }).length;
    const requests = api.requests().filter((r) => r.verb !== 'watch').length;
    t.log(`${HOSTS} hosts provisioned in ${seconds.toFixed(1)} s; status writes: ${attempts} requests (${changed} changed the object), ${(attempts / HOSTS).toFixed(2)} per host, at most ${most} for one host, for ${STATE_CHANGES} state changes each; 409s: ${conflicts}; API requests besides watches: ${requests}`);
    t.true(most <= STATE_CHANGES, `a host had ${most} status writes`);
    t.is(attempts, changed, 'no status write was refused or wasted');
  } finally {
    await it.stop();
    await api.close();
  }
});
