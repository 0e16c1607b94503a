// A seed's power parameters are what op=power_parameters answers (over the power type's defaults),
// they survive a save and reload, and no other answer (the machine JSON, nodes/) carries them.
import test from 'ava';
import { stringify } from 'yaml';
import { parseSeedMachines } from '../../src/sim/maas/index.ts';
import { call, idOf, ok, withSim } from '../support/maas-http.ts';

const SECRET = 'not-in-any-other-answer';

test('maas power parameters - a seed sets them, a save keeps them, only op=power_parameters shows them', async (t) => {
  await withSim(
    [
      { hostname: 'bmc-01', cpuCount: 4, memoryMb: 8192, powerType: 'redfish', powerParameters: { power_address: 'https://10.0.0.9', power_user: 'root', power_pass: SECRET } },
      { hostname: 'manual-01', cpuCount: 4, memoryMb: 8192, powerType: 'manual' },
    ],
    async (sim) => {
      const id = idOf(sim, 'bmc-01');
      t.deepEqual(ok(await call(sim, 'GET', `machines/${id}/?op=power_parameters`)), { power_address: 'https://10.0.0.9', power_user: 'root', power_pass: SECRET, node_id: '' });
      t.deepEqual(ok(await call(sim, 'GET', `machines/${idOf(sim, 'manual-01')}/?op=power_parameters`)), {});
      for (const path of ['machines/', `machines/${id}/`, 'nodes/', `nodes/${id}/`]) {
        const a = await call(sim, 'GET', path);
        t.is(a.status, 200, path);
        t.false(a.text.includes(SECRET), path);
      }
      const saved = sim.seeds().find((s) => s.hostname === 'bmc-01');
      t.like(parseSeedMachines(stringify([saved]), 'saved.yaml')[0]?.powerParameters, { power_pass: SECRET });
      t.is(sim.seeds().find((s) => s.hostname === 'manual-01')?.powerParameters, undefined);
    },
  );
});
