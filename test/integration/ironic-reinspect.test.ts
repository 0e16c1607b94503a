// inspect.metal3.io against a real Ironic: a re-inspection asked of an available host whose node
// is available in Ironic (after a deprovision) first moves the node to manageable; the request
// must still stand when the inspection itself is started (BMO removes the annotation only then),
// or the host reads back the old inspection's data and nothing is inspected.
import test from 'ava';
import { ironicHost, useIronicNode } from '../support/ironic-node.ts';
import { waitUntil } from '../support/wait.ts';

const it = useIronicNode(test);

const snapshot = (name: string) => it.node.snapshot(`lab/${name}`);

test('reinspect - an available host whose node was deprovisioned is inspected again when asked', async (t) => {
  t.true((await it.store.applyObjects([ironicHost('reinspect-1')])).ok);
  await waitUntil(async () => (await snapshot('reinspect-1'))?.state === 'provisioned', 60_000, 'provisioned');
  t.true((await it.store.applyObjects([ironicHost('reinspect-1', { image: null })])).ok);
  await waitUntil(async () => (await snapshot('reinspect-1'))?.state === 'available', 60_000, 'available again');
  const before = await it.client.getNode('lab~reinspect-1');
  t.is(before?.provision_state, 'available');
  t.truthy(before?.inspection_finished_at);

  t.true((await it.store.applyObjects([ironicHost('reinspect-1', { image: null, annotations: { 'inspect.metal3.io': '' } })])).ok);
  await waitUntil(async () => (await snapshot('reinspect-1'))?.recent.some((e) => e.reason === 'StateChanged' && e.message.startsWith('available -> inspecting')) ?? false, 30_000, 'inspecting');
  await waitUntil(async () => (await snapshot('reinspect-1'))?.state === 'available', 60_000, 'available after the inspection');
  const after = await it.client.getNode('lab~reinspect-1');
  t.not(after?.inspection_finished_at, before?.inspection_finished_at, 'Ironic inspected the node again');
  t.is((await it.store.get('lab/reinspect-1'))?.metadata.annotations?.['inspect.metal3.io'], undefined);
});
