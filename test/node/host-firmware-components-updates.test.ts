// A HostFirmwareComponents update on a running node (BMO's saveHostFirmwareComponents and its
// HFC controller's conditions): the preparing that flashes it records it in status.updates, so
// ChangeDetected goes False and nothing is flashed again; an invalid component shows as Valid
// False, naming the component, and is never sent.
import test from 'ava';
import { startTestNode, secret, bmh } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';

type Condition = { type: string; status: string; reason: string; message: string };
type ComponentsStatus = { updates?: Array<{ component: string; url: string }>; components?: unknown[]; conditions?: Condition[] };

test('hfc updates - a flashed update is recorded in status.updates once its preparing finished, ChangeDetected goes False, and it is flashed once', async (t) => {
  const { node, store, fixture } = await startTestNode({ objects: [secret(), bmh('u1', { image: false })] });
  t.teardown(() => node.stop());
  const resources = store.resources;
  const key = 'lab/u1';
  const statusOf = async () => (await resources.get('HostFirmwareComponents', key))?.status as ComponentsStatus | undefined;
  const condition = async (type: string) => (await statusOf())?.conditions?.find((c) => c.type === type);
  await waitUntil(async () => (await store.get(key))?.status?.provisioning.state === 'available', 20_000, 'the host available');
  await waitUntil(async () => Array.isArray((await statusOf())?.components), 10_000, 'its components read');
  // Nothing asked: valid, nothing to change, no updates recorded.
  t.like(await condition('Valid'), { status: 'True', reason: 'OK' });
  t.like(await condition('ChangeDetected'), { status: 'False', reason: 'OK' });
  t.is((await statusOf())?.updates, undefined);
  const prepared = fixture.calls(key).prepare;

  const update = { component: 'bmc', url: 'https://firmware.example/bmc-2.0.bin' };
  await resources.applyIntent('HostFirmwareComponents', key, { spec: { updates: [update] } });
  await waitUntil(async () => (await statusOf())?.updates?.length === 1, 20_000, 'the update recorded');
  t.deepEqual((await statusOf())?.updates, [update]);
  await waitUntil(async () => (await condition('ChangeDetected'))?.status === 'False', 10_000, 'no change left');
  t.like(await condition('Valid'), { status: 'True' });
  await waitUntil(async () => (await store.get(key))?.status?.provisioning.state === 'available', 20_000, 'the host available again');
  t.is(fixture.calls(key).prepare, prepared + 1);
});

test('hfc updates - an update of an unknown component is Valid False naming it, and no preparing sends it', async (t) => {
  const { node, store, fixture } = await startTestNode({ objects: [secret(), bmh('u2', { image: false })] });
  t.teardown(() => node.stop());
  const resources = store.resources;
  const key = 'lab/u2';
  const statusOf = async () => (await resources.get('HostFirmwareComponents', key))?.status as ComponentsStatus | undefined;
  const condition = async (type: string) => (await statusOf())?.conditions?.find((c) => c.type === type);
  await waitUntil(async () => (await store.get(key))?.status?.provisioning.state === 'available', 20_000, 'the host available');
  await waitUntil(async () => (await condition('ChangeDetected'))?.status === 'False', 10_000, 'its components judged');
  const prepared = fixture.calls(key).prepare;

  await resources.applyIntent('HostFirmwareComponents', key, { spec: { updates: [{ component: 'raid', url: 'https://user:pw@firmware.example/raid.bin' }] } });
  await waitUntil(async () => (await condition('Valid'))?.status === 'False', 10_000, 'the update judged invalid');
  const valid = await condition('Valid');
  t.is(valid?.reason, 'InvalidComponent');
  t.regex(valid?.message ?? '', /component raid is invalid/);
  t.notRegex(valid?.message ?? '', /pw|firmware\.example/);
  t.like(await condition('ChangeDetected'), { status: 'True' });
  t.is((await statusOf())?.updates, undefined);
  t.is(fixture.calls(key).prepare, prepared);
});
