import test from 'ava';
import { applyRedfishHost, useRedfishNode, waitHost } from '../support/redfish-node.ts';

// Adoption, detaching and deletion on Ironic's redfish drivers: what the simulated servers'
// power and disks go through (or must not).
const it = useRedfishNode(test, { systems: [{ powerOn: true }, {}, {}, {}] });

const state = (name: string) => it.node.stats.hosts.get(`lab/${name}`);
const node = (name: string) => it.client.getNode(`lab~${name}`);

test('redfish adopt - an externally provisioned host is adopted without touching its disk', async (t) => {
  const system = it.dc.systems[0]!;
  const server = it.dc.server(system.id);
  // A server already running an OS someone else installed.
  server.disk.writeImage({ id: 'os.img', url: it.dc.images.urlOf('os.img'), bytes: 1, checksum: { algorithm: 'sha256', value: it.dc.images.checksum('os.img', 'sha256') }, diskFormat: 'raw', imageType: 'whole-disk' }, { uefi: true });
  const boots = server.system.state.boots;
  await applyRedfishHost(it, system, 'rf-ext', { externallyProvisioned: true });
  await waitHost(it, 'rf-ext', () => state('rf-ext')?.state === 'externally provisioned', 60_000, 'externally provisioned', server);
  await waitHost(it, 'rf-ext', async () => (await node('rf-ext'))?.provision_state === 'active', 30_000, 'adopted in Ironic', server);
  t.is(server.disk.writes.length, 1, 'no image written');
  t.is(server.disk.erases.length, 0, 'nothing erased');
  t.true(server.system.state.on, 'still on');
  t.is(server.system.state.boots, boots, 'never rebooted');
  t.false(server.boots.some((b) => b.kind === 'ramdisk'), 'never booted the deploy ramdisk');
});

test('redfish detach - the detached annotation removes the node without touching the server; re-attaching adopts it', async (t) => {
  const system = it.dc.systems[1]!;
  const name = 'rf-det';
  const server = await applyRedfishHost(it, system, name);
  await waitHost(it, name, () => state(name)?.state === 'provisioned', 90_000, 'provisioned', server);
  const boots = server.system.state.boots;
  // Cleaning before the deploy erased it already; from here on nothing may.
  const erases = server.disk.erases.length;
  await it.store.applyIntent(`lab/${name}`, { annotations: { 'baremetalhost.metal3.io/detached': '' } });
  await waitHost(it, name, () => state(name)?.operationalStatus === 'detached', 30_000, 'detached', server);
  t.is(await node(name), null, 'node gone from Ironic');
  t.is(state(name)?.state, 'provisioned');
  t.true(server.system.state.on, 'power untouched');
  t.is(server.system.state.boots, boots, 'not rebooted');
  t.is(server.disk.erases.length, erases, 'disk untouched');

  await it.store.removeAnnotation(`lab/${name}`, 'baremetalhost.metal3.io/detached');
  await waitHost(it, name, async () => (await node(name))?.provision_state === 'active' && state(name)?.operationalStatus === 'OK', 30_000, 'adopted again', server);
  t.is(state(name)?.state, 'provisioned');
  t.true(server.system.state.on);
  t.is(server.system.state.boots, boots, 'adoption does not reboot');
  t.is(server.disk.writes.length, 1, 'nor rewrite the disk');
  t.is(server.disk.erases.length, erases);
});

for (const [index, cleaning] of [[2, 'metadata'], [3, 'disabled']] as const) {
  test(`redfish delete - deleting a provisioned host deprovisions it (cleaning ${cleaning}) and removes the node`, async (t) => {
    const system = it.dc.systems[index]!;
    const name = `rf-del-${cleaning}`;
    const server = await applyRedfishHost(it, system, name, { automatedCleaningMode: cleaning });
    await waitHost(it, name, () => state(name)?.state === 'provisioned', 90_000, 'provisioned', server);
    const uuid = (await node(name))?.uuid;
    t.truthy(uuid);
    const erases = server.disk.erases.length;
    await it.store.requestDelete(`lab/${name}`);
    await waitHost(it, name, () => it.node.stats.hosts.get(`lab/${name}`) === undefined, 90_000, 'host gone', server);
    t.is(await node(name), null, 'node removed');
    t.is(await it.client.getNode(uuid!), null, 'by UUID too');
    if (cleaning === 'metadata') {
      t.true(server.disk.erases.slice(erases).some((e) => e.kind === 'metadata'), 'metadata erased');
      t.is(server.disk.image, null);
    } else {
      t.is(server.disk.erases.length, 0, 'nothing erased');
      t.not(server.disk.image, null);
    }
    t.is(server.disk.writes.length, 1);
    t.false(server.system.state.on, 'left powered off');
  });
}
