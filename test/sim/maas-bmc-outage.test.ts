// The simulator's BMC outage (faults.bmcOutage) and its count of power commands per machine, over
// the real wire: what MAAS reads for power while a BMC does not answer, and what a power_on of a
// running machine is to MAAS's IPMI driver (a hard cycle).
import test from 'ava';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import type { MaasSim } from '../../src/sim/maas/index.ts';
import { call, idOf, ok } from '../support/maas-http.ts';

async function simWithDeployed(t: { teardown(fn: () => Promise<void>): void }): Promise<{ sim: MaasSim; on: string; off: string }> {
  const sim = await startMaasSim({
    machines: [
      { hostname: 'up', cpuCount: 4, memoryMb: 8192, status: 'Deployed', owner: 'admin' },
      { hostname: 'down', cpuCount: 4, memoryMb: 8192, status: 'Deployed', owner: 'admin' },
    ],
  });
  t.teardown(() => sim.stop());
  const off = idOf(sim, 'down');
  sim.powerOff(off);
  return { sim, on: idOf(sim, 'up'), off };
}

const power = async (sim: MaasSim, id: string) => ok<{ power_state: string }>(await call(sim, 'GET', `machines/${id}/`)).power_state;
const queried = async (sim: MaasSim, id: string) => ok<{ state: string }>(await call(sim, 'GET', `machines/${id}/?op=query_power_state`)).state;

test('maas sim bmc outage - named machines read error or unknown while it lasts; the machines run on, and read their own power once it is lifted', async (t) => {
  const { sim, on, off } = await simWithDeployed(t);
  t.is(await power(sim, on), 'on');
  // By system_id and by hostname.
  sim.setFaults({ bmcOutage: { [on]: 'error', down: 'unknown' } });
  t.is(await power(sim, on), 'error');
  t.is(await queried(sim, on), 'error');
  t.is(await power(sim, off), 'unknown');
  t.is(sim.machine(on)?.power_state, 'on', "the simulator's own view is the machine's real power");
  t.is(sim.machine(on)?.status_name, 'Deployed');
  sim.setFaults({ bmcOutage: { [on]: 'error' } });
  t.is(await power(sim, off), 'off', 'a machine no longer named reads its power again');
  sim.setFaults({ bmcOutage: {} });
  t.is(await power(sim, on), 'on');
  t.throws(() => sim.setFaults({ bmcOutage: { [on]: 'on' as 'error' } }), { message: /faults\.bmcOutage\..*: expected 'error' or 'unknown', got "on"/ });
});

test('maas sim bmc outage - power commands are counted per machine: a power_on of a running machine is a hard cycle', async (t) => {
  const { sim, on, off } = await simWithDeployed(t);
  t.deepEqual(sim.powerActions(on), { powerOn: 0, powerOff: 0, cycle: 0 });
  sim.setFaults({ bmcOutage: { [on]: 'error' } });
  // What CAPMAAS did on an `error` read: MAAS's IPMI driver runs `ipmipower --cycle --on-if-off`.
  t.is((await call(sim, 'POST', `machines/${on}/op-power_on`)).status, 200);
  t.deepEqual(sim.powerActions(on), { powerOn: 0, powerOff: 0, cycle: 1 });
  t.is((await call(sim, 'POST', `machines/${off}/?op=power_on`)).status, 200);
  t.is((await call(sim, 'POST', `machines/${off}/`, [['op', 'power_off']])).status, 200);
  t.deepEqual(sim.powerActions('down'), { powerOn: 1, powerOff: 1, cycle: 0 });
  sim.resetCounts();
  t.deepEqual(sim.powerActions(on), { powerOn: 0, powerOff: 0, cycle: 0 }, 'resetCounts clears them');
  t.throws(() => sim.powerActions('nosuch'), { message: /no machine nosuch/ });
});

test('maas sim bmc outage - a release while the BMC does not answer goes straight to Ready, as MAAS does when power cannot be queried', async (t) => {
  const { sim, on } = await simWithDeployed(t);
  sim.setFaults({ bmcOutage: { [on]: 'unknown' } });
  const released = ok<{ status_name: string }>(await call(sim, 'POST', `machines/${on}/`, [['op', 'release']]));
  t.is(released.status_name, 'Ready');
});
