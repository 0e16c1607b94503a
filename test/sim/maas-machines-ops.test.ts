// Machine operations beyond deploy/release (maas-lifecycle.test.ts has those): commission, abort,
// lock/unlock, mark_broken/mark_fixed, query_power_state, bulk release, install_kvm and
// ephemeral deploy, with MAAS's status codes and texts; on a clock the test moves by hand.
import test from 'ava';
import type { MaasSim, MaasSimOptions } from '../../src/sim/maas/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import type { Form, ManualClock } from '../support/maas-http.ts';
import { call, idOf, manualClock, ok } from '../support/maas-http.ts';

interface Machine {
  system_id: string;
  status_name: string;
  status_message: string;
  power_state: string;
  owner: string | null;
  locked: boolean;
  cpu_count: number;
  storage: number;
  error_description: string;
  osystem: string;
  ephemeral_deploy: boolean;
  commissioning_status_name: string;
}

async function started(t: { teardown(fn: () => Promise<void>): void }, o: MaasSimOptions = {}): Promise<{ sim: MaasSim; clock: ManualClock }> {
  const clock = manualClock();
  const sim = await startMaasSim({ clock, deployMs: 1000, releaseMs: 100, ...o });
  t.teardown(() => sim.stop());
  return { sim, clock };
}

const op = (sim: MaasSim, id: string, name: string, form: Form = [], key?: string) => call(sim, 'POST', `machines/${id}/`, [['op', name], ...form], key);
const read = async (sim: MaasSim, id: string) => ok<Machine>(await call(sim, 'GET', `machines/${id}/`));

test('maas machines ops - commission a New machine: Commissioning and on, then Ready, off and its hardware known', async (t) => {
  const { sim, clock } = await started(t, { machines: [{ hostname: 'fresh', cpuCount: 8, memoryMb: 16384, status: 'New' }] });
  const id = idOf(sim, 'fresh');
  t.like(await read(sim, id), { status_name: 'New', cpu_count: 0, storage: 0 });
  const r = ok<Machine>(await op(sim, id, 'commission', [['skip_bmc_config', 'true']]));
  t.like(r, { status_name: 'Commissioning', power_state: 'on', commissioning_status_name: 'Running' });
  clock.advance(999);
  t.is((await read(sim, id)).status_name, 'Commissioning');
  clock.advance(1);
  t.like(await read(sim, id), { status_name: 'Ready', power_state: 'off', cpu_count: 8, storage: 480000, commissioning_status_name: 'Passed' });
  t.is((await op(sim, id, 'commission', [], sim.userKey)).status, 403, 'commissioning is for admins');
  t.is((await op(sim, id, 'commission', [['enable_ssh', 'maybe']])).status, 400);
});

test('maas machines ops - abort: commissioning back to New, deploying back to Allocated; otherwise 409', async (t) => {
  const { sim } = await started(t);
  const id = idOf(sim, 'node-01');
  ok(await op(sim, id, 'commission'));
  t.like(ok<Machine>(await op(sim, id, 'abort')), { status_name: 'New', power_state: 'off', status_message: 'Aborted commissioning' });
  const other = idOf(sim, 'node-02');
  ok(await op(sim, other, 'deploy'));
  t.like(ok<Machine>(await op(sim, other, 'abort', [['comment', 'changed my mind']])), { status_name: 'Allocated', power_state: 'off', owner: 'admin' });
  const again = await op(sim, other, 'abort');
  t.is(again.status, 409);
  t.is(again.text, `Cannot abort in current state: node ${other} is in state Allocated.`);
});

test('maas machines ops - lock: only a deployed machine; a locked one refuses release, power and owner data (403) until unlocked', async (t) => {
  const { sim, clock } = await started(t);
  const id = idOf(sim, 'node-03');
  const ready = await op(sim, id, 'lock');
  t.is(ready.status, 409);
  t.is(ready.text, "Can't lock, node is not deployed or deploying");
  ok(await op(sim, id, 'deploy'));
  clock.advance(1000);
  t.true(ok<Machine>(await op(sim, id, 'lock', [['comment', 'production']])).locked);
  t.is((await op(sim, id, 'lock')).text, 'Machine is already locked');
  for (const name of ['release', 'power_off', 'set_owner_data', 'mark_broken']) t.is((await op(sim, id, name, [['k', 'v']])).status, 403, name);
  t.is((await call(sim, 'POST', 'machines/', [['op', 'release'], ['machines', id]])).status, 403);
  t.false(ok<Machine>(await op(sim, id, 'unlock')).locked);
  t.is((await op(sim, id, 'unlock')).text, 'Machine is not locked');
  t.is(ok<Machine>(await op(sim, id, 'release')).status_name, 'Releasing');
});

test('maas machines ops - mark_broken by the owner keeps the reason; mark_fixed (admin) makes it Ready', async (t) => {
  const { sim } = await started(t);
  const id = idOf(sim, 'node-05');
  t.is((await op(sim, id, 'mark_broken')).status, 403, 'not owned by the caller');
  ok(await call(sim, 'POST', 'machines/', [['op', 'allocate'], ['system_id', id]]));
  t.like(ok<Machine>(await op(sim, id, 'mark_broken', [['comment', 'fan failure']])), { status_name: 'Broken', error_description: 'fan failure' });
  t.is((await op(sim, id, 'mark_fixed', [], sim.userKey)).status, 403);
  t.like(ok<Machine>(await op(sim, id, 'mark_fixed')), { status_name: 'Ready', error_description: '', owner: null, status_message: "From 'Broken' to 'Ready'" });
  const again = await op(sim, id, 'mark_fixed');
  t.is(again.status, 409);
  t.is(again.text, "Can't mark a non-broken node as 'Ready'.");
});

test('maas machines ops - query_power_state follows power_on and power_off', async (t) => {
  const { sim, clock } = await started(t);
  const id = idOf(sim, 'node-06');
  const state = async () => ok<{ state: string }>(await call(sim, 'GET', `machines/${id}/?op=query_power_state`)).state;
  t.is(await state(), 'off');
  ok(await op(sim, id, 'deploy', [['install_kvm', 'true']]));
  t.is(await state(), 'on');
  clock.advance(1000);
  ok(await op(sim, id, 'power_off'));
  t.is(await state(), 'off');
  ok(await op(sim, id, 'power_on'));
  t.is(await state(), 'on');
});

test('maas machines ops - bulk release: each machine released, Ready ones skipped; unknown ids 400, a bad state 409 naming it', async (t) => {
  const { sim, clock } = await started(t);
  const [a, b, c] = ['node-01', 'node-02', 'node-08'].map((h) => idOf(sim, h)) as [string, string, string];
  ok(await op(sim, a, 'deploy'));
  ok(await op(sim, b, 'deploy', [['ephemeral_deploy', 'true']]));
  t.true((await read(sim, b)).ephemeral_deploy);
  clock.advance(1000);
  const released = ok<string[]>(await call(sim, 'POST', 'machines/', [['op', 'release'], ['machines', a], ['machines', b], ['machines', c], ['comment', 'done']]));
  t.deepEqual(released.sort(), [a, b].sort());
  clock.advance(100);
  t.deepEqual([a, b, c].map((id) => sim.machine(id)?.status_name), ['Ready', 'Ready', 'Ready']);
  const unknown = await call(sim, 'POST', 'machines/', [['op', 'release'], ['machines', 'zzzzzz']]);
  t.is(unknown.status, 400);
  t.is(unknown.text, 'Unknown machine(s): zzzzzz.');
  const fresh = await startMaasSim({ clock, machines: [{ hostname: 'n', cpuCount: 1, memoryMb: 1024, status: 'New' }] });
  t.teardown(() => fresh.stop());
  const n = idOf(fresh, 'n');
  const bad = await call(fresh, 'POST', 'machines/', [['op', 'release'], ['machines', n]]);
  t.is(bad.status, 409);
  t.is(bad.text, `Machine(s) cannot be released in their current state: ${n} ('New').`);
});

test('maas machines ops - speed: MAAS-like durations divided by it (deploy 300 s, commissioning 180 s); explicit deployMs wins', async (t) => {
  const clock = manualClock();
  const sim = await startMaasSim({ clock, speed: 600 });
  t.teardown(() => sim.stop());
  const id = idOf(sim, 'node-01');
  ok(await op(sim, id, 'deploy'));
  clock.advance(499);
  t.is(sim.machine(id)?.status_name, 'Deploying');
  clock.advance(1);
  t.is(sim.machine(id)?.status_name, 'Deployed');
  const other = idOf(sim, 'node-02');
  ok(await op(sim, other, 'commission'));
  clock.advance(299);
  t.is(sim.machine(other)?.status_name, 'Commissioning');
  clock.advance(1);
  t.is(sim.machine(other)?.status_name, 'Ready');
  const fixed = await startMaasSim({ clock, speed: 600, deployMs: 5 });
  t.teardown(() => fixed.stop());
  const f = idOf(fixed, 'node-01');
  ok(await op(fixed, f, 'deploy'));
  clock.advance(5);
  t.is(fixed.machine(f)?.status_name, 'Deployed');
  await t.throwsAsync(startMaasSim({ speed: 0 }), { message: /speed: expected a finite number > 0, got 0/ });
});

test('maas machines ops - release with quick_erase (or secure_erase) alone erases the disks first', async (t) => {
  const { sim, clock } = await started(t);
  const id = idOf(sim, 'node-03');
  ok(await op(sim, id, 'deploy'));
  clock.advance(1000);
  t.like(ok<Machine>(await op(sim, id, 'release', [['quick_erase', 'true'], ['comment', 'recycle']])), { status_name: 'Disk erasing', power_state: 'on' });
  clock.advance(100);
  t.like(await read(sim, id), { status_name: 'Ready', power_state: 'off', owner: null });
  const events = ok<{ events: Array<{ type: string }> }>(await call(sim, 'GET', `events/?op=query&id=${id}&limit=3`)).events.map((e) => e.type);
  t.deepEqual(events.slice(0, 2), ['Released', 'Disks erased']);
});

test('maas machines ops - accept / accept_all: enlisted New machines start commissioning; admins only', async (t) => {
  const { sim, clock } = await started(t, {
    machines: [
      { hostname: 'new-1', cpuCount: 2, memoryMb: 4096, status: 'New' },
      { hostname: 'new-2', cpuCount: 2, memoryMb: 4096, status: 'New' },
      { hostname: 'old', cpuCount: 2, memoryMb: 4096 },
    ],
  });
  const [n1, n2, old] = ['new-1', 'new-2', 'old'].map((h) => idOf(sim, h)) as [string, string, string];
  t.is((await call(sim, 'POST', 'machines/', [['op', 'accept'], ['machines', n1]], sim.userKey)).status, 403);
  const one = ok<Machine[]>(await call(sim, 'POST', 'machines/', [['op', 'accept'], ['machines', n1], ['machines', old]]));
  t.deepEqual(one.map((m) => [m.system_id, m.status_name]), [[n1, 'Commissioning']]);
  const rest = ok<Machine[]>(await call(sim, 'POST', 'machines/', [['op', 'accept_all']]));
  t.deepEqual(rest.map((m) => m.system_id), [n2]);
  clock.advance(1000);
  t.deepEqual([n1, n2].map((id) => sim.machine(id)?.status_name), ['Ready', 'Ready']);
});

test('maas machines ops - a deploy goes through the install steps on the clock: status_message follows, then Deployed', async (t) => {
  const { sim, clock } = await started(t);
  const id = idOf(sim, 'node-02');
  t.is(ok<Machine>(await op(sim, id, 'deploy')).status_message, 'Performing PXE boot');
  const seen: string[] = [];
  for (let ms = 0; ms < 1000; ms += 100) {
    clock.advance(100);
    const m = await read(sim, id);
    seen.push(`${m.status_name}: ${m.status_message}`);
  }
  t.deepEqual(seen, [
    'Deploying: Loading ephemeral', 'Deploying: Loading ephemeral', 'Deploying: Configuring storage', 'Deploying: Installing OS',
    'Deploying: Installing OS', 'Deploying: Installing OS', 'Deploying: Installing OS', 'Deploying: Configuring OS',
    'Deploying: Rebooting', 'Deployed: Deployed',
  ]);
});
