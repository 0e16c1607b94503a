// BareMetalHosts in Kubernetes driven by an embedded node: what a user does with kubectl (create,
// edit, delete, forget a Secret) and what the node writes back (status, finalizer, Events).
import test from 'ava';
import { bmh, secret } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';
import type { KubeApiServer, KubeObject } from '../support/kube-api/index.ts';
import { applyFile, hostStatus, startApi, startKubeNode, stateOf } from './support/kube-node.ts';
import type { KubeTestNode } from './support/kube-node.ts';

const ref = (key: string) => {
  const [namespace, name] = key.split('/') as [string, string];
  return { resource: 'baremetalhosts', namespace, name };
};

async function withNode(o: Parameters<typeof startKubeNode>[1], fn: (api: KubeApiServer, it: KubeTestNode) => Promise<void>): Promise<void> {
  const api = await startApi();
  const it = await startKubeNode(api, o);
  try {
    await fn(api, it);
  } finally {
    await it.stop();
    await api.close();
  }
}

test('kube hosts - create, update and delete drive the host: provisioned, powered off, deprovisioned and gone', async (t) => {
  await withNode({ fixture: { latencyMs: { deprovision: 300 } } }, async (api, it) => {
    api.create(secret('bmc', 'lab') as KubeObject);
    api.create(bmh('h1') as KubeObject);
    await waitUntil(() => stateOf(api, 'lab/h1') === 'provisioned' && hostStatus(api, 'lab/h1')?.poweredOn === true, 20_000, 'h1 provisioned and on');
    t.deepEqual((api.get(ref('lab/h1')) as { metadata: { finalizers?: string[] } }).metadata.finalizers, ['baremetalhost.metal3.io']);

    // kubectl edit: online false powers the host off.
    api.patch(ref('lab/h1'), { spec: { online: false } });
    await waitUntil(() => hostStatus(api, 'lab/h1')?.poweredOn === false, 10_000, 'h1 powered off');

    // kubectl delete: the object stays (finalizer) while the host deprovisions, then goes.
    api.delete(ref('lab/h1'));
    await waitUntil(() => stateOf(api, 'lab/h1') === 'deprovisioning', 10_000, 'deprovisioning');
    const terminating = api.get(ref('lab/h1')) as { metadata: { deletionTimestamp?: string; finalizers?: string[] } };
    t.truthy(terminating.metadata.deletionTimestamp);
    t.deepEqual(terminating.metadata.finalizers, ['baremetalhost.metal3.io']);
    await waitUntil(() => api.get(ref('lab/h1')) === undefined, 10_000, 'h1 gone');
    t.is(it.fixture.calls('lab/h1').deprovision, 1);
    t.is(it.fixture.calls('lab/h1').delete, 1);
    await waitUntil(() => !it.node.stats.hosts.has('lab/h1'), 5_000, 'actor gone');
  });
});

test('kube hosts - the Metal3 documentation example (a BareMetalHost with its BMC Secret) applies and is provisioned', async (t) => {
  await withNode({}, async (api) => {
    await applyFile(api, 'metal3-example.yaml');
    await waitUntil(() => stateOf(api, 'metal3/node-0') === 'provisioned', 20_000, 'node-0 provisioned');
    const st = hostStatus(api, 'metal3/node-0') as { operationalStatus?: string; provisioning?: { image?: { url?: string } } };
    t.is(st.operationalStatus, 'OK');
    t.regex(st.provisioning?.image?.url ?? '', /CENTOS_9_NODE_IMAGE/);
  });
});

test('kube hosts - a missing credentials Secret is a registration error in status, fixed when the Secret appears', async (t) => {
  // A retry an hour away: only the Secret appearing can wake the host in time.
  await withNode({ machine: { missingCredentialsRetryMs: 3_600_000 } }, async (api) => {
    api.create(bmh('h2', { credentialsName: 'late-bmc' }) as KubeObject);
    await waitUntil(() => hostStatus(api, 'lab/h2')?.errorType === 'registration error', 10_000, 'registration error');
    const failing = hostStatus(api, 'lab/h2');
    t.is(failing?.operationalStatus, 'error');
    t.is(failing?.errorMessage, 'BMC credentials Secret lab/late-bmc not found');
    api.create(secret('late-bmc', 'lab') as KubeObject);
    await waitUntil(() => stateOf(api, 'lab/h2') === 'provisioned', 20_000, 'h2 provisioned after the Secret appeared');
    t.is(hostStatus(api, 'lab/h2')?.errorType ?? '', '');
  });
});

test('kube hosts - state changes and failures are Events on the host, as BMO records them; repeats are counted', async (t) => {
  await withNode({ machine: { missingCredentialsRetryMs: 50 } }, async (api) => {
    api.create(bmh('h3', { credentialsName: 'never' }) as KubeObject);
    const host = () => api.get(ref('lab/h3')) as { metadata: { uid: string } };
    const events = async () => (await api.list('events', { namespace: 'lab' })) as Array<{ reason?: string; type?: string; count?: number; message?: string; involvedObject?: { kind?: string; name?: string; uid?: string; resourceVersion?: string }; source?: { component?: string } }>;
    await waitUntil(async () => (await events()).some((e) => e.reason === 'RegistrationError' && (e.count ?? 0) >= 3), 10_000, 'a counted RegistrationError event');
    const all = await events();
    const failures = all.filter((e) => e.reason === 'RegistrationError');
    t.is(failures.length, 1, 'identical events are one Event with a count');
    t.like(failures[0], { type: 'Warning', message: 'BMC credentials Secret lab/never not found', involvedObject: { kind: 'BareMetalHost', name: 'h3', uid: host().metadata.uid }, source: { component: 'metalfleet' } });
    t.truthy(failures[0]?.involvedObject?.resourceVersion);
    t.true(all.some((e) => e.reason === 'StateChanged' && e.type === 'Normal' && /registering/.test(e.message ?? '')));
  });
});

test('kube hosts - someone else writing status or spec meanwhile: the node re-reads and its status stands', async (t) => {
  // Provisioning lasts long enough to be seen in it on a loaded machine: the host's status writes
  // coalesce (write-lanes.ts), so a short stay in a state may never reach the API server.
  await withNode({ fixture: { latencyMs: { provision: 1_500 } } }, async (api) => {
    api.create(secret('bmc', 'lab') as KubeObject);
    api.create(bmh('h4') as KubeObject);
    await waitUntil(() => stateOf(api, 'lab/h4') === 'provisioning', 20_000, 'provisioning');
    // Another writer moves the RV under the node twice: a stray status and a label.
    const current = api.get(ref('lab/h4')) as { status: Record<string, unknown> };
    api.patch(ref('lab/h4'), { status: { ...current.status, errorMessage: 'written by someone else' } }, { subresource: 'status' });
    api.patch(ref('lab/h4'), { metadata: { labels: { rack: 'r9' } } });
    await waitUntil(() => stateOf(api, 'lab/h4') === 'provisioned', 10_000, 'provisioned');
    t.is(hostStatus(api, 'lab/h4')?.errorMessage, '', 'the owner\'s status replaced the stray one');
    t.is((api.get(ref('lab/h4')) as { metadata: { labels?: Record<string, string> } }).metadata.labels?.['rack'], 'r9', 'and the label stays');
  });
});

test('kube hosts - the adapter uses only permissions declared in ADAPTER_PERMISSIONS', async (t) => {
  await withNode({}, async (api, it) => {
    api.create(secret('bmc', 'lab') as KubeObject);
    api.create(bmh('h5') as KubeObject);
    await waitUntil(() => stateOf(api, 'lab/h5') === 'provisioned', 20_000, 'provisioned');
    await it.adapter.store.requestDelete('BareMetalHost', 'lab/h5');
    await waitUntil(() => api.get(ref('lab/h5')) === undefined, 10_000, 'gone');
    const used = [...it.adapter.calls.used].sort();
    t.log(used.join(', '));
    for (const p of ['list metal3.io/baremetalhosts', 'watch metal3.io/baremetalhosts', 'patch metal3.io/baremetalhosts', 'patch metal3.io/baremetalhosts/status', 'delete metal3.io/baremetalhosts', 'list core/secrets', 'watch core/secrets', 'create core/events']) {
      t.true(used.includes(p), p);
    }
  });
});
