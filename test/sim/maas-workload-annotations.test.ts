// op=set_owner_data as MAAS 3.5 answers it (api/nodes.py WorkloadAnnotationsMixin): the deprecated
// name of set_workload_annotations, which first checks the edit permission (403), then that the
// caller owns the machine: `node.owner_id != request.user.id` is a NodeStateViolation, 409
// "Cannot set workload annotation: it hasn't been acquired.", even for an admin. The machine's
// JSON carries the data twice: workload_annotations and the deprecated owner_data.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { MaasSim } from '../../src/sim/maas/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { call, idOf, ok } from '../support/maas-http.ts';

const NOT_ACQUIRED = "Cannot set workload annotation: it hasn't been acquired.";

interface Annotated {
  system_id: string;
  owner: string | null;
  owner_data: Record<string, string>;
  workload_annotations: Record<string, string>;
}

async function started(t: ExecutionContext): Promise<MaasSim> {
  const sim = await startMaasSim({ deployMs: 0, releaseMs: 0 });
  t.teardown(() => sim.stop());
  return sim;
}

test('maas workload annotations - set_owner_data on a machine nobody has acquired is 409, for an admin and for a user', async (t) => {
  const sim = await started(t);
  const id = idOf(sim, 'node-01');
  for (const key of [sim.adminKey, sim.userKey]) {
    const r = await call(sim, 'POST', `machines/${id}/`, [['op', 'set_owner_data'], ['k', 'v']], key);
    t.is(r.status, 409);
    t.is(r.text, NOT_ACQUIRED);
  }
  t.deepEqual(sim.machine(id)?.owner_data, {});
});

test('maas workload annotations - an admin cannot annotate a machine another user acquired (409), its owner can', async (t) => {
  const sim = await started(t);
  const mine = ok<Annotated>(await call(sim, 'POST', 'machines/', [['op', 'allocate']], sim.userKey));
  t.is(mine.owner, 'user');
  const byAdmin = await call(sim, 'POST', `machines/${mine.system_id}/`, [['op', 'set_owner_data'], ['k', 'admin']]);
  t.is(byAdmin.status, 409);
  t.is(byAdmin.text, NOT_ACQUIRED);
  const byOwner = ok<Annotated>(await call(sim, 'POST', `machines/${mine.system_id}/`, [['op', 'set_owner_data'], ['k', 'owner']], sim.userKey));
  t.deepEqual(byOwner.owner_data, { k: 'owner' });
});

test('maas workload annotations - op=set_workload_annotations sets, keeps and removes keys; workload_annotations mirrors owner_data', async (t) => {
  const sim = await started(t);
  const m = ok<Annotated>(await call(sim, 'POST', 'machines/', [['op', 'allocate']]));
  const first = ok<Annotated>(await call(sim, 'POST', `machines/${m.system_id}/`, [['op', 'set_workload_annotations'], ['a', '1'], ['b', '2']]));
  t.deepEqual(first.workload_annotations, { a: '1', b: '2' });
  t.deepEqual(first.owner_data, { a: '1', b: '2' });
  const second = ok<Annotated>(await call(sim, 'POST', `machines/${m.system_id}/op-set_workload_annotations`, [['a', ''], ['c', '3']]));
  t.deepEqual(second.workload_annotations, { b: '2', c: '3' });
  const read = ok<Annotated>(await call(sim, 'GET', `machines/${m.system_id}/`));
  t.deepEqual(read.workload_annotations, { b: '2', c: '3' });
  t.deepEqual(read.owner_data, { b: '2', c: '3' });
  const listed = ok<Annotated[]>(await call(sim, 'GET', `machines/?id=${m.system_id}`));
  t.deepEqual(listed.map((x) => x.workload_annotations), [{ b: '2', c: '3' }]);
  // On a machine nobody holds, the new name answers as the old one does.
  const nobodys = sim.machines().find((x) => x.owner === null);
  if (!nobodys) return t.fail('every machine is owned');
  const free = await call(sim, 'POST', `machines/${nobodys.system_id}/`, [['op', 'set_workload_annotations'], ['k', 'v']]);
  t.deepEqual([free.status, free.text], [409, NOT_ACQUIRED]);
});
