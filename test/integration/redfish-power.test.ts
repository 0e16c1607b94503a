import test from 'ava';
import { applyRedfishHost, useRedfishNode, waitHost } from '../support/redfish-node.ts';

// Power through Ironic's redfish power interface: what the simulated BMC's system ends up doing.
const it = useRedfishNode(test, { systems: 2 });

const state = (name: string) => it.node.stats.hosts.get(`lab/${name}`);

test('redfish power - online false and true switch the server off and on; the reboot annotation reboots it', async (t) => {
  const system = it.dc.systems[0]!;
  const name = 'rf-power';
  const server = await applyRedfishHost(it, system, name);
  await waitHost(it, name, () => state(name)?.state === 'provisioned' && state(name)?.poweredOn === true, 90_000, 'provisioned and on', server);
  t.true(server.system.state.on);

  await applyRedfishHost(it, system, name, { online: false });
  await waitHost(it, name, () => !server.system.state.on && state(name)?.poweredOn === false, 30_000, 'powered off', server);
  const bootsWhileOff = server.system.state.boots;

  await applyRedfishHost(it, system, name, { online: true });
  await waitHost(it, name, () => server.system.state.on && state(name)?.poweredOn === true, 30_000, 'powered on', server);
  t.is(server.system.state.boots, bootsWhileOff + 1, 'power on boots once');
  t.is(server.boots.at(-1)?.kind, 'os', 'boots the installed OS');

  const bootsBefore = server.system.state.boots;
  await it.store.applyIntent(`lab/${name}`, { annotations: { 'reboot.metal3.io': '' } });
  await waitHost(it, name, async () => (await it.store.get(`lab/${name}`))?.metadata.annotations?.['reboot.metal3.io'] === undefined, 30_000, 'reboot annotation consumed', server);
  await waitHost(it, name, () => server.system.state.on && server.system.state.boots > bootsBefore && state(name)?.poweredOn === true, 30_000, 'rebooted and on', server);
  t.is(server.system.state.boots, bootsBefore + 1, 'one reboot, one boot');
  t.is(server.boots.at(-1)?.kind, 'os');
  t.is(server.disk.writes.length, 1, 'power changes never rewrite the disk');
});

test('redfish power - an available host follows spec.online too', async (t) => {
  const system = it.dc.systems[1]!;
  const name = 'rf-power-avail';
  const server = await applyRedfishHost(it, system, name, { image: false, online: false });
  await waitHost(it, name, () => state(name)?.state === 'available' && !server.system.state.on, 90_000, 'available and off', server);
  const boots = server.system.state.boots;
  await applyRedfishHost(it, system, name, { image: false, online: true });
  await waitHost(it, name, () => server.system.state.on && state(name)?.poweredOn === true, 30_000, 'powered on', server);
  t.is(server.system.state.boots, boots + 1);
  await applyRedfishHost(it, system, name, { image: false, online: false });
  await waitHost(it, name, () => !server.system.state.on && state(name)?.poweredOn === false, 30_000, 'powered off again', server);
  t.is(server.disk.writes.length, 0, 'nothing written');
});
