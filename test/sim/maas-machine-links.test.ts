// A machine's interface links in the simulated MAAS: op=link_subnet / op=unlink_subnet as MAAS
// does them for a machine (api/interfaces.py, forms/interface_link.py, models/interface.py), the
// machine's ip_addresses following them at deploy, and release keeping STATIC links.
import test from 'ava';
import type { MaasSim, MaasSimOptions } from '../../src/sim/maas/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { call, ok } from '../support/maas-http.ts';

interface Link { id: number; mode: string; ip_address?: string; subnet?: { id: number; cidr: string } }
interface Nic { id: number; name: string; links: Link[] }
interface Machine { system_id: string; status_name: string; ip_addresses: string[]; boot_interface: Nic; interface_set: Nic[]; zone: { id: number } }

async function started(t: { teardown(fn: () => Promise<void>): void }, o: MaasSimOptions = {}): Promise<MaasSim> {
  const sim = await startMaasSim({ deployMs: 0, releaseMs: 0, ...o });
  t.teardown(() => sim.stop());
  return sim;
}

const allocate = async (sim: MaasSim, zone = 'az1') => ok<Machine>(await call(sim, 'POST', 'machines/', [['op', 'allocate'], ['zone', zone]]));
const nicPath = (m: Machine, op: string) => `nodes/${m.system_id}/interfaces/${m.boot_interface.id}/?op=${op}`;
const get = async (sim: MaasSim, id: string) => ok<Machine>(await call(sim, 'GET', `machines/${id}/`));

test('maas sim links - STATIC replaces AUTO: the address is the machine\'s at once and stays through deploy', async (t) => {
  const sim = await started(t);
  const m = await allocate(sim);
  const cidr = `10.10.${m.zone.id}.0/24`;
  const auto = m.boot_interface.links;
  t.like(auto, [{ mode: 'auto', subnet: { cidr } }]);
  const linked = ok<Nic>(await call(sim, 'POST', nicPath(m, 'link_subnet'), [['mode', 'STATIC'], ['subnet', cidr], ['ip_address', `10.10.${m.zone.id}.200`], ['default_gateway', 'true']]));
  t.deepEqual(linked.links.map((l) => [l.mode, l.ip_address]), [['auto', undefined], ['static', `10.10.${m.zone.id}.200`]]);
  const unlinked = ok<Nic>(await call(sim, 'POST', nicPath(m, 'unlink_subnet'), [['id', String(auto[0]?.id)]]));
  t.deepEqual(unlinked.links.map((l) => [l.mode, l.ip_address]), [['static', `10.10.${m.zone.id}.200`]]);
  t.deepEqual((await get(sim, m.system_id)).ip_addresses, [`10.10.${m.zone.id}.200`]);
  // The subnet lists it as STICKY (alloc_type 1), a static address MAAS holds for the machine.
  const held = ok<Array<{ ip: string; alloc_type: number }>>(await call(sim, 'GET', `subnets/${encodeURIComponent(cidr)}/?op=ip_addresses`));
  t.deepEqual(held.filter((h) => h.ip === `10.10.${m.zone.id}.200`).map((h) => h.alloc_type), [1]);
  ok(await call(sim, 'POST', `machines/${m.system_id}/`, [['op', 'deploy'], ['distro_series', 'jammy']]));
  // With no AUTO link left, deploy claims nothing: the static address is the machine's one.
  t.deepEqual((await get(sim, m.system_id)).ip_addresses, [`10.10.${m.zone.id}.200`]);
  // Release frees AUTO addresses only (Node.release_interface_config): the STATIC link stays.
  ok(await call(sim, 'POST', `machines/${m.system_id}/`, [['op', 'release']]));
  const back = await get(sim, m.system_id);
  t.is(back.status_name, 'Ready');
  t.deepEqual(back.boot_interface.links.map((l) => [l.mode, l.ip_address]), [['static', `10.10.${m.zone.id}.200`]]);
});

test('maas sim links - an AUTO link beside a STATIC one gets its address at deploy, listed after the static one', async (t) => {
  const sim = await started(t);
  const m = await allocate(sim);
  const cidr = `10.10.${m.zone.id}.0/24`;
  ok(await call(sim, 'POST', nicPath(m, 'link_subnet'), [['mode', 'static'], ['subnet', cidr]]));
  const picked = (await get(sim, m.system_id)).ip_addresses;
  t.is(picked.length, 1, 'MAAS picks a free address when none is named');
  ok(await call(sim, 'POST', `machines/${m.system_id}/`, [['op', 'deploy']]));
  const deployed = await get(sim, m.system_id);
  t.is(deployed.ip_addresses.length, 2);
  t.is(deployed.ip_addresses[0], picked[0]);
});

test('maas sim links - MAAS\'s refusals: outside the subnet, in use, unknown subnet, bad mode, wrong state, not admin', async (t) => {
  const sim = await started(t, { deployMs: 60_000 });
  const m = await allocate(sim);
  const cidr = `10.10.${m.zone.id}.0/24`;
  const link = async (form: Array<[string, string]>, key?: string): Promise<[number, string]> => {
    const r = await call(sim, 'POST', nicPath(m, 'link_subnet'), form, key);
    return [r.status, r.text];
  };
  const subnet = ok<{ id: number; name: string }>(await call(sim, 'GET', `subnets/${encodeURIComponent(cidr)}/`));
  t.deepEqual(await link([['mode', 'STATIC'], ['subnet', cidr], ['ip_address', '192.168.7.7']]), [400, `{"ip_address": ["IP address is not in the given subnet '${subnet.name}:${cidr}(vid=0)'."]}`]);
  // Another machine's address is taken.
  const other = await allocate(sim);
  ok(await call(sim, 'POST', `machines/${other.system_id}/`, [['op', 'deploy']]));
  const taken = (await get(sim, other.system_id)).ip_addresses[0] ?? '';
  t.true(taken.startsWith(`10.10.${m.zone.id}.`), 'both machines are in az1');
  t.deepEqual(await link([['mode', 'STATIC'], ['subnet', cidr], ['ip_address', taken]]), [404, 'IP address is already in use.']);
  t.deepEqual(await link([['mode', 'STATIC'], ['subnet', '10.99.0.0/24']]), [400, '{"subnet": ["Select a valid choice. That choice is not one of the available choices."]}']);
  t.deepEqual(await link([['mode', 'bogus'], ['subnet', cidr]]), [400, `{"mode": ["'bogus' is not a valid mode.  It should be one of: 'auto', 'dhcp', 'static', 'link_up'."]}`]);
  t.deepEqual(await link([['mode', 'STATIC']]), [400, '{"subnet": ["This field is required."]}']);
  t.deepEqual(await link([['mode', 'LINK_UP']]), [400, '{"mode": ["Cannot configure interface to link up (with no IP address) while other links are already configured. Specify force=True to override this behavior and delete all links."]}']);
  t.deepEqual((await link([['mode', 'STATIC'], ['subnet', cidr]], sim.userKey))[0], 403);
  const unlink = await call(sim, 'POST', nicPath(m, 'unlink_subnet'), [['id', '12345']]);
  t.deepEqual([unlink.status, unlink.text], [400, `{"id": ["'12345' is not a valid id.  It should be one of: '${m.boot_interface.links[0]?.id ?? ''}'."]}`]);
  // A deploying machine's interfaces are fixed.
  ok(await call(sim, 'POST', `machines/${m.system_id}/`, [['op', 'deploy']]));
  t.deepEqual(await link([['mode', 'STATIC'], ['subnet', cidr]]), [409, 'Cannot link subnet interface because the machine is not New, Ready, Allocated, or Broken.']);
  t.deepEqual(m.boot_interface.links.map((l) => l.mode), ['auto']);
});
