// nodes/ without credentials (AnonNodesHandler in api/nodes.py, NodesHandler.anonymous): a booting
// machine's enlistment scripts ask op=is_registered and op=is_action_in_progress with no key. The
// anonymous is_registered leaves out New, Commissioning and Retired nodes (enlistment must be able
// to run for them); a keyless GET of anything else there meets the anonymous handler's 400.
import http from 'node:http';
import test from 'ava';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import type { MaasSim } from '../../src/sim/maas/index.ts';
import { call } from '../support/maas-http.ts';

function anonymous(sim: MaasSim, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    http.get(`${sim.url}/api/2.0/${path}`, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    }).on('error', reject);
  });
}

test('maas anonymous nodes - is_registered and is_action_in_progress answer without credentials (New machines left out); a keyless read of nodes/ finds no anonymous read', async (t) => {
  const sim = await startMaasSim({ machines: [
    { hostname: 'ready', zone: 'az1', cpuCount: 2, memoryMb: 2048, status: 'Ready' },
    { hostname: 'fresh', zone: 'az1', cpuCount: 2, memoryMb: 2048, status: 'New' },
  ] });
  t.teardown(() => sim.stop());
  const nics = JSON.parse((await call(sim, 'GET', 'machines/')).text) as Array<{ hostname: string; boot_interface: { mac_address: string } }>;
  const mac = (h: string) => nics.find((m) => m.hostname === h)?.boot_interface.mac_address ?? '';
  const ready = await anonymous(sim, `nodes/?op=is_registered&mac_address=${mac('ready')}`);
  t.deepEqual([ready.status, ready.text], [200, 'true']);
  // A New machine's MAC is not registered to the anonymous check (enlistment may run), while the
  // authenticated one counts it.
  t.deepEqual([(await anonymous(sim, `nodes/?op=is_registered&mac_address=${mac('fresh')}`)).text], ['false']);
  t.is((await call(sim, 'GET', `nodes/?op=is_registered&mac_address=${mac('fresh')}`)).text, 'true');
  t.deepEqual(Object.values(await anonymous(sim, 'nodes/?op=is_registered')), [400, 'No provided mac_address!']);
  t.deepEqual(Object.values(await anonymous(sim, `nodes/?op=is_action_in_progress&mac_address=${mac('ready')}`)), [200, 'false']);
  // piston hands a keyless GET to the anonymous handler, which has no read: MAAS's 400, not a 401.
  t.deepEqual(Object.values(await anonymous(sim, 'nodes/')), [400, 'Unrecognised signature: method=GET op=None']);
  t.is((await anonymous(sim, 'machines/')).status, 401);
});
