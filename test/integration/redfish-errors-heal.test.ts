import test from 'ava';
import { applyRedfishHost, redfishHost, redfishSecret, useRedfishNode, waitHost } from '../support/redfish-node.ts';

// Failures that heal on Ironic's redfish drivers: a BMC refusing a wrong password, and Ironic
// losing its database under provisioned hosts.
const it = useRedfishNode(test, { systems: 3 });

const state = (name: string) => it.node.stats.hosts.get(`lab/${name}`);
const node = (name: string) => it.client.getNode(`lab~${name}`);

// Serial: the restart takes Ironic away from every host of the file for a moment.
test.serial('redfish heal - Ironic losing its database re-registers and adopts provisioned hosts without rewriting their disks', async (t) => {
  const hosts = [
    { name: 'rf-heal-pxe', system: it.dc.systems[0]!, virtualMedia: false },
    { name: 'rf-heal-vmedia', system: it.dc.systems[1]!, virtualMedia: true },
  ];
  const servers = await Promise.all(hosts.map((h) => applyRedfishHost(it, h.system, h.name, { virtualMedia: h.virtualMedia })));
  await Promise.all(hosts.map((h, i) => waitHost(it, h.name, () => state(h.name)?.state === 'provisioned', 90_000, `${h.name} provisioned`, servers[i])));
  const before = await Promise.all(hosts.map(async (h, i) => ({ uuid: (await node(h.name))?.uuid, boots: servers[i]!.system.state.boots, erases: servers[i]!.disk.erases.length })));

  await it.ironic.restartEmpty();
  t.is(await node(hosts[0]!.name), null, 'Ironic forgot the nodes');

  await Promise.all(hosts.map((h, i) => waitHost(it, h.name, async () => (await node(h.name))?.provision_state === 'active' && state(h.name)?.operationalStatus === 'OK', 60_000, `${h.name} adopted again`, servers[i])));
  for (const [i, h] of hosts.entries()) {
    const server = servers[i]!;
    t.not((await node(h.name))?.uuid, before[i]!.uuid, `${h.name}: a new node`);
    t.is(state(h.name)?.state, 'provisioned', `${h.name} stays provisioned`);
    t.is(server.disk.writes.length, 1, `${h.name}: image not rewritten`);
    t.is(server.disk.erases.length, before[i]!.erases, `${h.name}: nothing erased`);
    t.not(server.disk.image, null, `${h.name}: image still there`);
    t.true(server.system.state.on, `${h.name}: still on`);
    t.is(server.system.state.boots, before[i]!.boots, `${h.name}: not rebooted`);
  }
});

test.serial('redfish heal - a wrong BMC password is a readable registration error; fixing the Secret heals it', async (t) => {
  const system = it.dc.systems[2]!;
  const name = 'rf-badpass';
  const wrong = 'not-the-bmc-password-4711';
  t.true((await it.store.applyObjects([redfishSecret(name, system, { password: wrong }), redfishHost(it.dc, system, name, { image: false })])).ok);
  const server = it.dc.server(system.id);
  await waitHost(it, name, () => state(name)?.errorType === 'registration error', 60_000, 'registration error', server);
  const snap = await it.node.snapshot(`lab/${name}`);
  const message = snap?.status.errorMessage ?? '';
  t.regex(message, /\S/, 'a message');
  t.regex(message, /401|credentials|session|auth/i, 'says the BMC refused the credentials');
  for (const text of [message, ...(snap?.recent ?? []).map((e) => e.message)]) {
    t.false(text.includes(wrong), `no wrong password in: ${text}`);
    t.false(text.includes(system.password), `no real password in: ${text}`);
  }
  t.false(server.system.state.on, 'nothing reached the server');

  t.true((await it.store.applyObjects([redfishSecret(name, system)])).ok);
  await waitHost(it, name, () => state(name)?.state === 'available' && state(name)?.errorType === '', 90_000, 'healed to available', server);
  // An available host's node stays manageable until it is provisioned (BMO provides it then).
  const healed = await node(name);
  t.true(['manageable', 'available'].includes(healed?.provision_state ?? ''), `node is ${healed?.provision_state}`);
  t.falsy(healed?.last_error);
  t.is(healed?.power_state, server.system.state.on ? 'power on' : 'power off', 'Ironic reads the BMC now');
});
