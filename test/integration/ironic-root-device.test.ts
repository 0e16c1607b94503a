// BMO's Provision sends the root device hints status records (status.provisioning.rootDeviceHints:
// the spec's, else the hardware profile's), against a real Ironic: a host without hints of its
// own still deploys to the profile's disk, never to one Ironic picked by itself.
import test from 'ava';
import { ironicHost, useIronicNode } from '../support/ironic-node.ts';
import { waitUntil } from '../support/wait.ts';

const it = useIronicNode(test);

async function deployed(name: string, spec: Record<string, unknown> = {}): Promise<{ rootDevice: unknown; recorded: unknown }> {
  const host = ironicHost(name) as { spec: Record<string, unknown> };
  if (!(await it.store.applyObjects([{ ...host, spec: { ...host.spec, ...spec } }])).ok) throw new Error(`${name} refused`);
  await waitUntil(async () => (await it.node.snapshot(`lab/${name}`))?.state === 'provisioned', 60_000, `${name} provisioned`);
  const node = await it.client.getNode(`lab~${name}`);
  const snap = await it.node.snapshot(`lab/${name}`);
  return { rootDevice: (node?.instance_info as Record<string, unknown> | undefined)?.['root_device'], recorded: snap?.status.provisioning.rootDeviceHints };
}

test('root device - a host without hints deploys to its hardware profile\'s disk, as status records', async (t) => {
  const { rootDevice, recorded } = await deployed('rdh-default');
  t.deepEqual(recorded, { deviceName: '/dev/sda' });
  t.deepEqual(rootDevice, { name: '/dev/sda' });
});

test('root device - the spec\'s hints go to Ironic in its names', async (t) => {
  const { rootDevice, recorded } = await deployed('rdh-spec', { rootDeviceHints: { serialNumber: 'S1', minSizeGigabytes: 20 } });
  t.deepEqual(recorded, { serialNumber: 'S1', minSizeGigabytes: 20 });
  t.deepEqual(rootDevice, { serial: 'S1', size: '>= 20' });
});
