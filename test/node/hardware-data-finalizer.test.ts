// A host's HardwareData carries BMO's finalizer, `baremetalhost.metal3.io/hardwareData`, so the
// object is the same whichever controller wrote it: a HardwareData BMO wrote is freed when metalfleet
// deletes its host (metalfleet's own name, `hardwaredata.metal3.io`, left BMO's on it, Terminating
// for ever), and one an earlier metalfleet wrote with that name is freed too.
import test from 'ava';
import { startTestNode, secret, bmh } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';

const BMO_FINALIZER = 'baremetalhost.metal3.io/hardwareData';

test('hardware data finalizer - written with BMO\'s name; deleting the host frees and deletes it', async (t) => {
  const { node, store } = await startTestNode({ objects: [secret(), bmh('h1', { image: false })] });
  t.teardown(() => node.stop());
  const resources = store.resources;
  const key = 'lab/h1';
  await waitUntil(async () => (await resources.get('HardwareData', key)) !== undefined, 20_000, 'its HardwareData');
  t.deepEqual((await resources.get('HardwareData', key))?.metadata.finalizers, [BMO_FINALIZER]);
  await resources.requestDelete('BareMetalHost', key);
  await waitUntil(async () => (await resources.get('HardwareData', key)) === undefined, 20_000, 'its HardwareData gone');
  t.pass();
});

test('hardware data finalizer - one left by BMO or an earlier metalfleet (either name) is removed with its host', async (t) => {
  const { node, store } = await startTestNode({ objects: [secret(), bmh('h2', { image: false })] });
  t.teardown(() => node.stop());
  const resources = store.resources;
  const key = 'lab/h2';
  await waitUntil(async () => (await store.get(key))?.status?.provisioning.state === 'available' && (await resources.get('HardwareData', key)) !== undefined, 20_000, 'the host available with its HardwareData');
  // Both names on it: what an earlier metalfleet wrote beside BMO's.
  await resources.addFinalizer('HardwareData', key, BMO_FINALIZER);
  await resources.addFinalizer('HardwareData', key, 'hardwaredata.metal3.io');
  t.deepEqual([...(await resources.get('HardwareData', key))?.metadata.finalizers ?? []].sort(), [BMO_FINALIZER, 'hardwaredata.metal3.io'].sort());
  await resources.requestDelete('BareMetalHost', key);
  await waitUntil(async () => (await store.get(key)) === undefined, 20_000, 'the host gone');
  await waitUntil(async () => (await resources.get('HardwareData', key)) === undefined, 20_000, 'its HardwareData gone, both finalizers removed');
  t.pass();
});
