// gomaasapi's legacy MAASObject client (extras.go) against the simulator: a machine's details
// decoded by mgo's BSON (the decoder juju's own MAAS test server pairs with), power_parameters
// for an admin and a user key, and ipranges/ created, read, updated, listed and deleted.
import test from 'ava';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { buildMaasflow, goMissing } from './gomaasapi/build.ts';
import { runFlow } from './gomaasapi/run.ts';
import type { FlowStep } from './gomaasapi/run.ts';

const missing = await goMissing();
const FLAGS = ['-zone', 'az1', '-not-zone', 'az2', '-agent', 'juju-extras', '-timeout', '20s', '-poll', '50ms'];
const EXTRAS = ['probe_details_bson', 'probe_power_parameters', 'probe_ipranges'];

for (const who of ['admin', 'user'] as const) {
  test(`gomaasapi extras - details as BSON, power_parameters and ipranges/ with the ${who} key`, async (t) => {
    // A missing Go or gomaasapi is a failure here, never a skip.
    if (missing !== null) throw new Error(`the gomaasapi test needs Go and gomaasapi: ${missing}`);
    const binary = await buildMaasflow();
    const sim = await startMaasSim({ deployMs: 300, releaseMs: 100 });
    t.teardown(() => sim.stop());
    const run = await runFlow(binary, sim.url, who === 'admin' ? sim.adminKey : sim.userKey, { flags: FLAGS });
    const step = (name: string): FlowStep => run.steps.find((s) => s.step === name) ?? { step: name, ok: false, error: 'not printed' };
    t.deepEqual(EXTRAS.map(step).filter((s) => !s.ok).map((s) => `${s.step}: ${s.error ?? ''}`), [], run.stderr);

    const details = step('probe_details_bson');
    t.like(details, { keys: 2, lshw_head: '<?xml version="1.0" ', lldp_head: '<?xml version="1.0" ' });
    t.true(Number(details.lshw_bytes) > 200);

    const power = step('probe_power_parameters');
    if (who === 'admin') t.like(power, { forbidden: false, has_power_pass: true, power_driver: 'LAN_2_0' });
    else t.like(power, { forbidden: true });

    t.like(step('probe_ipranges'), { comment: 'gomaasapi updated', end_ip: '10.10.2.246', overlap_status: 400, listed: 1, after_delete_status: 404 });
  });
}
