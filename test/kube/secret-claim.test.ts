// BMO's claim on BMC Secrets (pkg/secretutils): the environment label and the
// baremetalhost.metal3.io/secret finalizer while a BareMetalHost names the Secret, the finalizer
// lifted once none does, so deleting a Secret in use waits for its hosts.
import test from 'ava';
import { secretClaimPatch, SECRET_FINALIZER } from '../../src/adapters/kube/secret-claim.ts';
import { bmh, secret } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';
import type { KubeObject } from '../support/kube-api/index.ts';
import { startApi, startKubeNode, stateOf } from './support/kube-node.ts';

const raw = (meta: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bmc', namespace: 'lab', resourceVersion: '7', ...meta } });

test('secret claim - a Secret in use gets BMO\'s environment label and finalizer, after any others, at the version read', (t) => {
  t.deepEqual(secretClaimPatch(raw({ finalizers: ['other/keep'] }), 1), {
    metadata: { labels: { 'environment.metal3.io': 'baremetal' }, finalizers: ['other/keep', SECRET_FINALIZER], resourceVersion: '7' },
  });
  t.is(secretClaimPatch(raw({ labels: { 'environment.metal3.io': 'baremetal' }, finalizers: [SECRET_FINALIZER] }), 2), null, 'claimed already: no write');
});

test('secret claim - unused: only our finalizer goes and the label stays (BMO ReleaseSecret); a Secret never claimed is left alone', (t) => {
  t.deepEqual(secretClaimPatch(raw({ labels: { 'environment.metal3.io': 'baremetal' }, finalizers: ['other/keep', SECRET_FINALIZER] }), 0), {
    metadata: { finalizers: ['other/keep'], resourceVersion: '7' },
  });
  t.is(secretClaimPatch(raw({}), 0), null);
});

test('secret claim - a Secret being deleted gets no new finalizer (the API server forbids it) but keeps ours while in use', (t) => {
  t.deepEqual(secretClaimPatch(raw({ deletionTimestamp: '2026-01-01T00:00:00Z' }), 1), { metadata: { labels: { 'environment.metal3.io': 'baremetal' }, resourceVersion: '7' } });
  t.is(secretClaimPatch(raw({ deletionTimestamp: '2026-01-01T00:00:00Z', labels: { 'environment.metal3.io': 'baremetal' }, finalizers: [SECRET_FINALIZER] }), 1), null);
});

test('secret claim - with the API server: the BMC Secret of two hosts is claimed, a deleted Secret waits for both hosts to go, others are untouched', async (t) => {
  const api = await startApi();
  const it = await startKubeNode(api, {});
  const ref = (resource: string, name: string) => ({ resource, namespace: 'lab', name });
  const meta = (name: string) => (api.get(ref('secrets', name)) as { metadata: { labels?: Record<string, string>; finalizers?: string[]; deletionTimestamp?: string } } | undefined)?.metadata;
  try {
    api.create(secret('bmc', 'lab') as KubeObject);
    api.create(secret('unrelated', 'lab') as KubeObject);
    api.create(bmh('h1') as KubeObject);
    api.create(bmh('h2') as KubeObject);
    await waitUntil(() => meta('bmc')?.finalizers?.includes(SECRET_FINALIZER) === true, 20_000, 'the BMC Secret claimed');
    t.is(meta('bmc')?.labels?.['environment.metal3.io'], 'baremetal');
    await waitUntil(() => stateOf(api, 'lab/h1') === 'provisioned' && stateOf(api, 'lab/h2') === 'provisioned', 20_000, 'both hosts provisioned');
    t.is(meta('unrelated')?.finalizers, undefined, 'a Secret no host names gets no finalizer');
    t.is(meta('unrelated')?.labels, undefined);

    // kubectl delete secret while hosts use it: it stays, terminating, with its data.
    api.delete(ref('secrets', 'bmc'));
    t.truthy(meta('bmc')?.deletionTimestamp);
    api.delete(ref('baremetalhosts', 'h1'));
    await waitUntil(() => api.get(ref('baremetalhosts', 'h1')) === undefined, 20_000, 'h1 deprovisioned and gone');
    t.truthy(meta('bmc'), 'h2 still names it: the Secret is kept');
    t.true(meta('bmc')?.finalizers?.includes(SECRET_FINALIZER));
    api.delete(ref('baremetalhosts', 'h2'));
    // The last host gone, the finalizer is lifted and the API server finishes the delete.
    await waitUntil(() => api.get(ref('secrets', 'bmc')) === undefined, 20_000, 'the Secret deleted once no host names it');
    t.is(it.fixture.calls('lab/h2').deprovision, 1, 'h2 could deprovision with its credentials');
  } finally {
    await it.stop();
    await api.close();
  }
});
