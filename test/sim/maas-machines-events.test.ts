// The event log: what a machine's life records (types and levels of MAAS's EVENT_DETAILS) and
// GET events/?op=query with its filters, paging and response shape (api/events.py).
import test from 'ava';
import type { MaasSim } from '../../src/sim/maas/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import type { ManualClock } from '../support/maas-http.ts';
import { call, idOf, manualClock, ok } from '../support/maas-http.ts';

interface Event {
  username: string;
  node: string;
  hostname: string;
  id: number;
  level: string;
  created: string;
  type: string;
  description: string;
}

interface Page {
  count: number;
  events: Event[];
  next_uri: string;
  prev_uri: string | null;
}

async function deployedAndReleased(t: { teardown(fn: () => Promise<void>): void }): Promise<{ sim: MaasSim; clock: ManualClock; id: string }> {
  const clock = manualClock(Date.UTC(2026, 0, 2, 3, 4, 5));
  const sim = await startMaasSim({ clock, deployMs: 1000, releaseMs: 100 });
  t.teardown(() => sim.stop());
  const id = idOf(sim, 'node-01');
  ok(await call(sim, 'POST', `machines/${id}/`, [['op', 'deploy'], ['comment', 'web tier']]));
  clock.advance(1000);
  ok(await call(sim, 'POST', `machines/${id}/`, [['op', 'release'], ['comment', 'done']]));
  clock.advance(100);
  return { sim, clock, id };
}

const query = async (sim: MaasSim, q: string) => ok<Page>(await call(sim, 'GET', `events/?op=query&${q}`));

test('maas machines events - a deploy and release, newest first at INFO: the statuses and install steps MAAS reports', async (t) => {
  const { sim, id } = await deployedAndReleased(t);
  const page = await query(sim, `id=${id}`);
  t.deepEqual(page.events.map((e) => e.type).reverse(), [
    'Deploying', 'Performing PXE boot', 'Loading ephemeral', 'Configuring storage', 'Installing OS', 'Configuring OS', 'Rebooting', 'Deployed', 'Releasing', 'Released',
  ]);
  t.is(page.count, 10);
  t.true(page.events.every((e) => e.level === 'INFO' && e.node === id && e.hostname === 'node-01'));
  t.is(page.events.at(-1)?.created, 'Fri, 02 Jan. 2026 03:04:05');
  t.is(page.events[0]?.created, 'Fri, 02 Jan. 2026 03:04:06');
});

test('maas machines events - level DEBUG adds user requests "(user) - comment" and status changes; AUDIT is its own level', async (t) => {
  const { sim, id } = await deployedAndReleased(t);
  const debug = await query(sim, `hostname=node-01&level=DEBUG&limit=1000`);
  const byType = (type: string) => debug.events.filter((e) => e.type === type);
  t.like(byType('User starting deployment')[0], { description: '(admin) - web tier', username: 'admin', level: 'DEBUG' });
  t.like(byType('User releasing node')[0], { description: '(admin) - done' });
  t.true(byType('Node changed status').some((e) => e.description === "From 'Deploying' to 'Deployed'"));
  t.deepEqual(byType('Node powered on').map((e) => e.node), [id]);
  t.is((await query(sim, 'level=AUDIT')).count, 0);
  const bad = await call(sim, 'GET', 'events/?op=query&level=LOUD');
  t.is(bad.status, 400);
  t.is(bad.text, 'Unrecognised log level: LOUD');
});

test('maas machines events - limit and before/after page through; next_uri and prev_uri fetch the neighbours', async (t) => {
  const { sim, id } = await deployedAndReleased(t);
  const first = await query(sim, `id=${id}&limit=4`);
  t.deepEqual(first.events.map((e) => e.type), ['Released', 'Releasing', 'Deployed', 'Rebooting']);
  const oldest = first.events.at(-1)?.id ?? 0;
  t.is(first.prev_uri, `/MAAS/api/2.0/events/?op=query&id=${id}&limit=4&before=${oldest}`);
  const older = ok<Page>(await call(sim, 'GET', (first.prev_uri ?? '').replace('/MAAS/api/2.0/', '')));
  t.deepEqual(older.events.map((e) => e.type), ['Configuring OS', 'Installing OS', 'Configuring storage', 'Loading ephemeral']);
  const newer = ok<Page>(await call(sim, 'GET', older.next_uri.replace('/MAAS/api/2.0/', '')));
  t.deepEqual(newer.events.map((e) => e.id), first.events.map((e) => e.id));
  t.is((await call(sim, 'GET', 'events/?op=query&limit=1001')).text, 'Requested number of events 1001 is greater than limit: 1000');
  t.is((await call(sim, 'GET', 'events/?op=query&after=1&before=5')).status, 400);
});

test('maas machines events - node filters: another machine, zone and agent_name pick whose events', async (t) => {
  const { sim } = await deployedAndReleased(t);
  t.is((await query(sim, 'hostname=node-02')).count, 0);
  t.is((await query(sim, 'zone=az2')).count, 0);
  t.is((await query(sim, 'zone=az1')).count, 10);
  const bad = await call(sim, 'GET', 'events/?op=query&mac_address=zz');
  t.is(bad.status, 400);
  t.is(bad.text, 'Invalid MAC address(es): zz');
});
