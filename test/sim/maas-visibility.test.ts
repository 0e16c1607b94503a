// What a non-admin key sees of machines (MAAS 3.x, RBAC off). NodePermission.view on a machine is
// "owner is None, or owner is the user, or the user is an admin" (auth/local.py _can_view);
// listings go through NodeManager.get_nodes(user, view), which filters on the same condition, and
// GET machines/{id}/ through get_node_or_404, which answers 404 for no such machine and 403
// (PermissionDenied, no text) for one the user may not view. Release needs edit (403 likewise);
// allocate picks among the Ready machines the user may edit (owner is None).
import test from 'ava';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import type { MaasSim } from '../../src/sim/maas/index.ts';
import { call, idOf, ok } from '../support/maas-http.ts';

interface Machine {
  system_id: string;
  hostname: string;
  owner: string | null;
}

async function fleet(t: { teardown(fn: () => Promise<void>): void }): Promise<MaasSim> {
  const sim = await startMaasSim({ machines: [
    { hostname: 'admins', zone: 'az1', cpuCount: 2, memoryMb: 2048, status: 'Deployed', owner: 'admin' },
    { hostname: 'users', zone: 'az1', cpuCount: 2, memoryMb: 2048, status: 'Deployed', owner: 'user' },
    { hostname: 'free', zone: 'az1', cpuCount: 2, memoryMb: 2048, status: 'Ready' },
    { hostname: 'fresh', zone: 'az1', cpuCount: 2, memoryMb: 2048, status: 'New' },
  ] });
  t.teardown(() => sim.stop());
  return sim;
}

const hostnames = (ms: Machine[]) => ms.map((m) => m.hostname).sort();

test('maas visibility - a non-admin key lists its own machines and unowned ones, never another user\'s; an admin key lists all', async (t) => {
  const sim = await fleet(t);
  t.deepEqual(hostnames(ok<Machine[]>(await call(sim, 'GET', 'machines/', undefined, sim.userKey))), ['free', 'fresh', 'users']);
  t.deepEqual(hostnames(ok<Machine[]>(await call(sim, 'GET', 'machines/', undefined, sim.adminKey))), ['admins', 'free', 'fresh', 'users']);
  // Filters narrow what the user may view; they never widen it.
  t.deepEqual(ok<Machine[]>(await call(sim, 'GET', `machines/?id=${idOf(sim, 'admins')}`, undefined, sim.userKey)), []);
  t.deepEqual(ok<Machine[]>(await call(sim, 'GET', 'machines/?hostname=admins', undefined, sim.userKey)), []);
  t.deepEqual(hostnames(ok<Machine[]>(await call(sim, 'GET', `machines/?id=${idOf(sim, 'users')}`, undefined, sim.userKey))), ['users']);
  // nodes/ chains MachinesHandler.read: the same machines.
  const nodes = ok<Machine[]>(await call(sim, 'GET', 'nodes/', undefined, sim.userKey));
  t.false(nodes.some((n) => n.hostname === 'admins'));
  t.true(nodes.some((n) => n.hostname === 'users'));
});

test('maas visibility - a non-admin key reading another user\'s machine is refused 403 with no text; its own and unowned ones read; no such machine is 404', async (t) => {
  const sim = await fleet(t);
  for (const path of [`machines/${idOf(sim, 'admins')}/`, `nodes/${idOf(sim, 'admins')}/`, `machines/${idOf(sim, 'admins')}/?op=details`, `machines/${idOf(sim, 'admins')}/?op=query_power_state`, `nodes/${idOf(sim, 'admins')}/blockdevices/`]) {
    const refused = await call(sim, 'GET', path, undefined, sim.userKey);
    t.is(refused.status, 403, path);
    t.is(refused.text, '', path);
  }
  t.like(ok<Machine>(await call(sim, 'GET', `machines/${idOf(sim, 'users')}/`, undefined, sim.userKey)), { owner: 'user' });
  t.like(ok<Machine>(await call(sim, 'GET', `machines/${idOf(sim, 'free')}/`, undefined, sim.userKey)), { owner: null });
  t.like(ok<Machine>(await call(sim, 'GET', `machines/${idOf(sim, 'users')}/`, undefined, sim.adminKey)), { owner: 'user' });
  const missing = await call(sim, 'GET', 'machines/nosuch/', undefined, sim.userKey);
  t.is(missing.status, 404);
  t.is(missing.text, 'No Machine matches the given query.');
});

test('maas visibility - a non-admin key releasing another user\'s machine is refused 403; allocate never hands it another user\'s machine', async (t) => {
  const sim = await fleet(t);
  t.is((await call(sim, 'POST', `machines/${idOf(sim, 'admins')}/`, [['op', 'release']], sim.userKey)).status, 403);
  const got = ok<Machine>(await call(sim, 'POST', 'machines/', [['op', 'allocate']], sim.userKey));
  t.like(got, { hostname: 'free', owner: 'user' });
  // Allocated to the user now, it is the user's to read and list; the admin still sees everything.
  t.true(ok<Machine[]>(await call(sim, 'GET', 'machines/', undefined, sim.userKey)).some((m) => m.hostname === 'free'));
  t.is((await call(sim, 'POST', 'machines/', [['op', 'allocate']], sim.userKey)).status, 409);
  t.is((await call(sim, 'GET', `machines/${idOf(sim, 'free')}/`, undefined, sim.adminKey)).status, 200);
});
