// Who may deploy a machine (MachineHandler.deploy in MAAS 3.x, RBAC off): get_node_or_404 with
// NodePermission.edit first, so a non-admin deploying a machine another user holds is
// PermissionDenied (403, no text), as a read or release of it is; only an admin, who may edit it,
// meets the 409 NodeStateViolation for a Ready machine another user owns.
import test from 'ava';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { call, idOf } from '../support/maas-http.ts';

test("maas deploy permission - a non-admin deploying another user's allocated machine is 403 with no text, and nothing changes", async (t) => {
  const sim = await startMaasSim({ deployMs: 0, machines: [
    { hostname: 'held', zone: 'az1', cpuCount: 2, memoryMb: 2048, status: 'Allocated', owner: 'admin' },
  ] });
  t.teardown(() => sim.stop());
  const id = idOf(sim, 'held');
  const r = await call(sim, 'POST', `machines/${id}/`, [['op', 'deploy']], sim.userKey);
  t.is(r.status, 403);
  t.is(r.text, '');
  t.like(sim.machine(id), { status_name: 'Allocated', owner: 'admin', power_state: 'off' });
  // The admin, who may edit any machine, deploys it.
  const byAdmin = await call(sim, 'POST', `machines/${id}/`, [['op', 'deploy']], sim.adminKey);
  t.is(byAdmin.status, 200, byAdmin.text);
});
