// op=power_off on the MAAS simulator over the real wire (HTTP, OAuth), through the project's own
// client: Node.stop() as MAAS has it — the edit permission (owner, or admin; 403 for someone
// else's machine), power_state off, the status kept, 404 for an unknown machine.
import test from 'ava';
import { createMaasClient, MaasError } from '../../src/adapters/maas/client/index.ts';
import type { MaasClient, MaasMachine } from '../../src/adapters/maas/client/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import type { MaasSim } from '../../src/sim/maas/index.ts';

const FAST = { attempts: 2, baseMs: 5, maxMs: 20 };

async function withSim(fn: (e: { sim: MaasSim; admin: MaasClient; user: MaasClient }) => Promise<void>): Promise<void> {
  const sim = await startMaasSim({ deployMs: 50, releaseMs: 200 });
  const admin = createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey, retries: FAST, timeoutMs: 5_000 });
  const user = createMaasClient({ endpoint: sim.url, apiKey: sim.userKey, retries: FAST, timeoutMs: 5_000 });
  try {
    await fn({ sim, admin, user });
  } finally {
    admin.close();
    user.close();
    await sim.stop();
  }
}

async function waitFor(c: MaasClient, id: string, done: (m: MaasMachine) => boolean, what: string): Promise<MaasMachine> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const m = await c.getMachine(id);
    if (m !== null && done(m)) return m;
    if (Date.now() > deadline) throw new Error(`${id}: not ${what}; last ${m?.status_name}, power ${m?.power_state}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('maas sim power_off - the owner powers a Deployed machine off; it stays Deployed and off until powered on', async (t) => {
  await withSim(async ({ sim, user }) => {
    const m = await user.allocate({ cpuCount: 2 });
    await user.deploy(m.system_id, { distroSeries: 'jammy' });
    await waitFor(user, m.system_id, (x) => x.status_name === 'Deployed' && x.power_state === 'on', 'Deployed and on');
    const off = await user.powerOff(m.system_id, { stopMode: 'soft', comment: 'asked by metalfleet' });
    t.is(off.status_name, 'Deployed');
    t.is(off.power_state, 'off');
    t.is((await user.getMachine(m.system_id))?.power_state, 'off');
    // Powering off what is off is fine (MAAS sends the power action again).
    t.is((await user.powerOff(m.system_id)).power_state, 'off');
    t.is(sim.counts().byRoute['POST machines/{id}/ op=power_off'], 2);
    t.is(user.stats.byRoute['POST /machines/{id}/op-power_off'], 2);
    const on = await user.powerOn(m.system_id);
    t.is(on.status_name, 'Deployed');
    t.is(on.power_state, 'on');
  });
});

test("maas sim power_off - someone else's machine is 403 (admin may); an unknown one is 404", async (t) => {
  await withSim(async ({ admin, user }) => {
    const mine = await admin.allocate({ cpuCount: 2 });
    await admin.deploy(mine.system_id, { distroSeries: 'jammy' });
    await waitFor(admin, mine.system_id, (x) => x.status_name === 'Deployed', 'Deployed');
    const denied = await t.throwsAsync(user.powerOff(mine.system_id), { instanceOf: MaasError });
    t.is(denied?.code, 'forbidden');
    t.is(denied?.status, 403);
    t.is((await admin.getMachine(mine.system_id))?.power_state, 'on', 'a refused power-off changes nothing');

    const theirs = await user.allocate({ cpuCount: 2 });
    await user.deploy(theirs.system_id, { distroSeries: 'jammy' });
    await waitFor(user, theirs.system_id, (x) => x.status_name === 'Deployed', 'Deployed');
    t.is((await admin.powerOff(theirs.system_id)).power_state, 'off', 'an admin may power off any machine');

    const missing = await t.throwsAsync(admin.powerOff('zzzzzz'), { instanceOf: MaasError });
    t.is(missing?.code, 'not-found');
    t.is(missing?.maasMessage, 'No Machine matches the given query.');
  });
});

test('maas sim power_off - a Releasing machine powered off is released (Ready)', async (t) => {
  await withSim(async ({ user }) => {
    const m = await user.allocate({ cpuCount: 2 });
    await user.deploy(m.system_id, { distroSeries: 'jammy' });
    await waitFor(user, m.system_id, (x) => x.status_name === 'Deployed' && x.power_state === 'on', 'Deployed and on');
    t.is((await user.release(m.system_id)).status_name, 'Releasing');
    const off = await user.powerOff(m.system_id);
    t.is(off.status_name, 'Ready');
    t.is(off.owner, null);
  });
});
