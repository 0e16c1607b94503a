// `--save` / `--fleet` keep what MAAS keeps on a machine across a region restart: its interface
// links as link_subnet/unlink_subnet left them (a STATIC address stays with the machine through
// release, Node.release_interface_config), its min_hwe_kernel and swap_size (machine settings that
// outlive deployments) and a Deployed machine's hwe_kernel. Before, the links went back to the
// commissioned AUTO one, freeing the STATIC address for anyone, and the settings were dropped.
import test from 'ava';
import { stringify } from 'yaml';
import type { MaasSim } from '../../src/sim/maas/index.ts';
import { parseSeedMachines, startMaasSim } from '../../src/sim/maas/index.ts';
import { call, ok } from '../support/maas-http.ts';

interface Link { id: number; mode: string; ip_address?: string; subnet?: { cidr: string } }
interface Nic { id: number; name: string; links: Link[] }
interface Machine { system_id: string; status_name: string; ip_addresses: string[]; boot_interface: Nic; interface_set: Nic[]; zone: { id: number }; min_hwe_kernel: string | null; hwe_kernel: string | null; swap_size: number | null }

const get = async (sim: MaasSim, id: string) => ok<Machine>(await call(sim, 'GET', `machines/${id}/`));
const nicPath = (m: Machine, op: string) => `nodes/${m.system_id}/interfaces/${m.boot_interface.id}/?op=${op}`;
const linksOf = (m: Machine) => m.interface_set.map((n) => [n.name, n.links.map((l) => [l.mode, l.ip_address, l.subnet?.cidr])]);

async function restarted(t: { teardown(fn: () => Promise<void>): void }, sim: MaasSim): Promise<MaasSim> {
  const saved = stringify(sim.seeds());
  await sim.stop();
  const again = await startMaasSim({ deployMs: 0, releaseMs: 0, machines: parseSeedMachines(saved, 'state.yaml') });
  t.teardown(() => again.stop());
  return again;
}

test('maas sim save - a released machine\'s STATIC link and its min_hwe_kernel and swap_size survive --save/--fleet', async (t) => {
  const sim = await startMaasSim({ deployMs: 0, releaseMs: 0 });
  const m = ok<Machine>(await call(sim, 'POST', 'machines/', [['op', 'allocate'], ['zone', 'az1']]));
  const cidr = `10.10.${m.zone.id}.0/24`;
  const address = `10.10.${m.zone.id}.77`;
  const auto = m.boot_interface.links[0]?.id;
  ok(await call(sim, 'POST', nicPath(m, 'link_subnet'), [['mode', 'STATIC'], ['subnet', cidr], ['ip_address', address]]));
  ok(await call(sim, 'POST', nicPath(m, 'unlink_subnet'), [['id', String(auto)]]));
  ok(await call(sim, 'PUT', `machines/${m.system_id}/`, [['min_hwe_kernel', 'ga-22.04'], ['swap_size', '0']]));
  ok(await call(sim, 'POST', `machines/${m.system_id}/`, [['op', 'deploy'], ['distro_series', 'jammy']]));
  ok(await call(sim, 'POST', `machines/${m.system_id}/`, [['op', 'release']]));
  const before = await get(sim, m.system_id);
  t.is(before.status_name, 'Ready');
  t.deepEqual(before.ip_addresses, [address]);

  const again = await restarted(t, sim);
  const after = await get(again, m.system_id);
  t.is(after.status_name, 'Ready');
  t.deepEqual(after.ip_addresses, [address], 'the STATIC address stays the machine\'s');
  t.deepEqual(linksOf(after), linksOf(before));
  t.is(after.min_hwe_kernel, 'ga-22.04');
  t.is(after.swap_size, 0);
  // Still held: nobody else gets it.
  const other = ok<Machine>(await call(again, 'POST', 'machines/', [['op', 'allocate'], ['zone', 'az1']]));
  const taken = await call(again, 'POST', nicPath(other, 'link_subnet'), [['mode', 'STATIC'], ['subnet', cidr], ['ip_address', address]]);
  t.is(taken.status, 404);
  t.is(taken.text, 'IP address is already in use.');
});

test('maas sim save - a Deployed machine with a STATIC link comes back with it and its hwe_kernel; release then keeps the STATIC address', async (t) => {
  const sim = await startMaasSim({ deployMs: 0, releaseMs: 0 });
  const m = ok<Machine>(await call(sim, 'POST', 'machines/', [['op', 'allocate'], ['zone', 'az2']]));
  const cidr = `10.10.${m.zone.id}.0/24`;
  const address = `10.10.${m.zone.id}.88`;
  ok(await call(sim, 'POST', nicPath(m, 'link_subnet'), [['mode', 'STATIC'], ['subnet', cidr], ['ip_address', address]]));
  ok(await call(sim, 'POST', `machines/${m.system_id}/`, [['op', 'deploy'], ['distro_series', 'jammy'], ['hwe_kernel', 'hwe-22.04']]));
  await new Promise((r) => setTimeout(r, 50));
  const before = await get(sim, m.system_id);
  t.is(before.status_name, 'Deployed');
  t.is(before.ip_addresses.length, 2, 'the STATIC address and the AUTO one the deploy claimed');

  const again = await restarted(t, sim);
  const after = await get(again, m.system_id);
  t.is(after.status_name, 'Deployed');
  t.deepEqual(after.ip_addresses, before.ip_addresses);
  t.deepEqual(linksOf(after), linksOf(before));
  t.is(after.hwe_kernel, 'hwe-22.04');
  ok(await call(again, 'POST', `machines/${m.system_id}/`, [['op', 'release']]));
  await new Promise((r) => setTimeout(r, 50));
  const released = await get(again, m.system_id);
  t.is(released.status_name, 'Ready');
  t.deepEqual(released.ip_addresses, [address], 'release frees the AUTO address only');
});

test('maas sim save - a fleet file\'s links are checked: an unknown NIC or an address without its subnet is named', (t) => {
  const bad = `
- hostname: h1
  cpuCount: 2
  memoryMb: 2048
  links: [{ nic: eno9, mode: static, subnet: 10.10.1.0/24, ip: 10.10.1.5 }, { nic: eth0, mode: static, ip: 10.10.1.6 }]
`;
  const err = t.throws(() => parseSeedMachines(bad, 'state.yaml'));
  t.is(err?.message, 'state.yaml: [0].links[0].nic: "eno9" is not a NIC of this machine (it has eth0)\nstate.yaml: [0].links[1].subnet: a link with an ip needs its subnet');
});

test('maas sim save - a Deployed machine switched off comes back off', async (t) => {
  const sim = await startMaasSim({ deployMs: 0, releaseMs: 0 });
  const m = ok<Machine>(await call(sim, 'POST', 'machines/', [['op', 'allocate'], ['zone', 'az1']]));
  ok(await call(sim, 'POST', `machines/${m.system_id}/`, [['op', 'deploy'], ['distro_series', 'jammy']]));
  await new Promise((r) => setTimeout(r, 50));
  ok(await call(sim, 'POST', `machines/${m.system_id}/`, [['op', 'power_off']]));
  const power = async (s: MaasSim, id: string) => (ok<{ power_state: string }>(await call(s, 'GET', `machines/${id}/`))).power_state;
  t.is(await power(sim, m.system_id), 'off');
  const again = await restarted(t, sim);
  t.is((await get(again, m.system_id)).status_name, 'Deployed');
  t.is(await power(again, m.system_id), 'off');
  // Power on again: still Deployed, and a new save writes no power (on is what Deployed implies).
  ok(await call(again, 'POST', `machines/${m.system_id}/`, [['op', 'power_on']]));
  t.is(await power(again, m.system_id), 'on');
  t.is(again.seeds().find((s) => s.systemId === m.system_id)?.powerState, undefined);
});
