// `metalfleet hosts` shows a MaasMachine's status as its kind's view has it (paused, waiting,
// delayed, OK), the way it shows a BareMetalHost's: the rows come from each kind's view, not from
// a status the reader works out for itself. Against the embedded node driving the MAAS simulator.
import test from 'ava';
import { hostsView, type ViewOptions } from '../../src/cli/introspect/index.ts';
import { startServedMaasNode, maasMachineObject } from '../support/maas-node.ts';
import { waitUntil } from '../support/wait.ts';

test('hosts - a paused and a waiting MaasMachine show paused and waiting in STATUS, as their kind\'s view says', async (t) => {
  const served = await startServedMaasNode('cli');
  const { it, client } = served;
  const base: ViewOptions = { format: 'table', width: 200, timeoutMs: 2_000, natsUrl: 'memory', nodes: ['embedded'] };
  try {
    // Paused by Cluster API's annotation; the other waits for the Machine that would own it.
    t.true((await it.apply([maasMachineObject('held', { 'cluster.x-k8s.io/paused': '' }), maasMachineObject('alone')])).ok);
    const rowOf = (lines: readonly string[], key: string): string[] => lines.find((l) => l.startsWith(`${key} `))?.trim().split(/\s{2,}/) ?? [];
    let lines: string[] = [];
    await waitUntil(async () => {
      lines = (await hostsView(client, {}, base)).stdout.split('\n');
      return rowOf(lines, 'capi/held')[5] === 'paused' && rowOf(lines, 'capi/alone')[5] === 'waiting';
    }, 10_000, 'both machines listed with their status');
    const header = lines[0]?.trim().split(/\s{2,}/) ?? [];
    t.is(header[5], 'STATUS');
    t.deepEqual(rowOf(lines, 'capi/held').slice(1, 6), ['maas', 'maas', 'Pending', 'off', 'paused']);
    t.deepEqual(rowOf(lines, 'capi/alone').slice(1, 6), ['maas', 'maas', 'Pending', 'off', 'waiting']);
    // Nothing was asked of MAAS for either.
    t.is(it.sim.machines().filter((m) => m.owner !== null).length, 0);
  } finally {
    await served.stop();
  }
});
