import test from 'ava';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { GADGETS, GROUP, NS, VERSION, WIDGETS, failure, meta, raw, widget, widgetsPath, withApi } from './helpers.ts';

const ref = { resource: 'widgets', namespace: NS, name: 'a' };

test('status - the main endpoint keeps the stored status; only non-metadata changes bump generation', async (t) => {
  const { server, custom } = await withApi(t);
  server.create(widget('a'));
  server.updateStatus({ ...widget('a'), status: { phase: 'Ready' } });
  const current = server.get(ref);
  const labelled = await custom.replaceNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body: {
    ...current, metadata: { ...meta(current), labels: { x: 'y' }, annotations: { note: 'n' }, finalizers: ['test.metalfleet.io/f'] }, status: { phase: 'Failed' },
  } });
  t.is(meta(labelled).generation, 1, 'labels, annotations and finalizers do not bump generation');
  t.deepEqual((labelled as { status: unknown }).status, { phase: 'Ready' }, 'status change ignored');
  t.not(meta(labelled).resourceVersion, meta(current).resourceVersion);
  const spec = await custom.patchNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body: { spec: { size: 5 }, status: { phase: 'Failed' } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
  t.is(meta(spec).generation, 2);
  t.deepEqual((spec as { status: unknown }).status, { phase: 'Ready' });
  const onlyStatus = await custom.patchNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body: { status: { phase: 'Failed' } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
  t.is(meta(onlyStatus).resourceVersion, meta(spec).resourceVersion, 'a status-only change on the main endpoint is a no-op');
});

test('status - /status changes only status: spec and metadata changes are ignored, no status removes it', async (t) => {
  const { server, custom } = await withApi(t);
  server.create(widget('a', { size: 1 }, { metadata: { name: 'a', namespace: NS, labels: { keep: 'me' } } }));
  const current = server.get(ref);
  const put = await custom.replaceNamespacedCustomObjectStatus({ ...WIDGETS, namespace: NS, name: 'a', body: {
    ...current, metadata: { ...meta(current), labels: { other: 'x' }, finalizers: ['test.metalfleet.io/f'] }, spec: { size: 9 }, status: { phase: 'Ready', observedGeneration: 1 },
  } });
  t.deepEqual((put as { spec: unknown }).spec, { size: 1, color: 'red', image: { checksumType: 'sha256' } });
  t.deepEqual(meta(put).labels, { keep: 'me' });
  t.is(meta(put).finalizers, undefined);
  t.is(meta(put).generation, 1);
  t.deepEqual((put as { status: unknown }).status, { phase: 'Ready', observedGeneration: 1 });

  const read = await custom.getNamespacedCustomObjectStatus({ ...WIDGETS, namespace: NS, name: 'a' });
  t.deepEqual(read, put, 'GET /status returns the whole object');

  const stale = await failure(custom.replaceNamespacedCustomObjectStatus({ ...WIDGETS, namespace: NS, name: 'a', body: current }));
  t.is(stale.code, 409, 'the RV check comes first');
  const removed = await custom.replaceNamespacedCustomObjectStatus({ ...WIDGETS, namespace: NS, name: 'a', body: { ...put, status: undefined } });
  t.is((removed as { status?: unknown }).status, undefined);
});

test('status - the default JSON patch cannot replace a missing /status; add works, and a bad status is a 422', async (t) => {
  const { server, custom } = await withApi(t);
  server.create(widget('a'));
  const replace = await failure(custom.patchNamespacedCustomObjectStatus({ ...WIDGETS, namespace: NS, name: 'a', body: [{ op: 'replace', path: '/status', value: { phase: 'Ready' } }] }));
  t.is(replace.code, 422);
  t.deepEqual(replace.status, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server rejected our request due to an error in our request', reason: 'Invalid', details: {}, code: 422 });
  const added = await custom.patchNamespacedCustomObjectStatus({ ...WIDGETS, namespace: NS, name: 'a', body: [{ op: 'add', path: '/status', value: { phase: 'Ready' } }] });
  t.deepEqual((added as { status: unknown }).status, { phase: 'Ready' });
  const bad = await failure(custom.patchNamespacedCustomObjectStatus({ ...WIDGETS, namespace: NS, name: 'a', body: { status: { phase: 'Gone' } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch)));
  t.is(bad.status.message, 'Widget.test.metalfleet.io "a" is invalid: status.phase: Unsupported value: "Gone": supported values: "Pending", "Ready", "Failed"');
});

test('status - without the subresource, status is an ordinary field and bumps generation', async (t) => {
  const { custom } = await withApi(t);
  const g = await custom.createClusterCustomObject({ ...GADGETS, body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'Gadget', metadata: { name: 'g' }, status: { up: true } } });
  t.deepEqual((g as { status: unknown }).status, { up: true });
  const next = await custom.patchClusterCustomObject({ ...GADGETS, name: 'g', body: { status: { up: false } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
  t.is(meta(next).generation, 2);
});

test('status - the counter tells status writes that changed something from all attempts', async (t) => {
  const { server, custom } = await withApi(t);
  server.create(widget('a'));
  const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  const patchStatus = (status: unknown): Promise<unknown> => custom.patchNamespacedCustomObjectStatus({ ...WIDGETS, namespace: NS, name: 'a', body: { status } }, merge);
  await patchStatus({ phase: 'Pending' });
  await patchStatus({ phase: 'Pending' });
  await failure(patchStatus({ phase: 'Nope' }));
  server.failNext({ method: 'PATCH', subresource: 'status', status: 500 });
  await failure(patchStatus({ phase: 'Ready' }));
  await patchStatus({ phase: 'Ready' });
  await custom.patchNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body: { spec: { size: 2 } } }, merge);
  t.deepEqual(server.statusWrites(ref), { changed: 2, attempts: 5 });
  t.deepEqual(server.statusWrites({ resource: 'Widget', namespace: NS, name: 'other' }), { changed: 0, attempts: 0 });
  const res = await raw(server, 'PUT', `${widgetsPath}/a/status`, { ...server.get(ref), status: { phase: 'Failed' } });
  t.is(res.status, 200);
  t.deepEqual(server.statusWrites(ref), { changed: 3, attempts: 6 });
});
