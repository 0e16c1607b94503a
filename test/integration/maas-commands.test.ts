// Commands on MaasMachines end to end on one node: `metalfleet host power-off|power-on|release`
// over the node's command server (a memory bus), recorded on the MaasMachine, acted on by its
// actor against the MAAS simulator.
import test from 'ava';
import { createMemoryBus } from '../../src/bus/index.ts';
import { buildHostCommands, sendHostCommands } from '../../src/cli/commands/host.ts';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import { startCommandServer } from '../../src/cluster/command-server.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { startMaasNode, type MaasTestNode } from '../support/maas-node.ts';
import { waitUntil } from '../support/wait.ts';

type Status = {
  ready?: boolean; machinePowered?: boolean; failureReason?: string; failureMessage?: string;
  conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
};
const KEY = 'capi/demo-worker-0';
const STEADY_MS = 100;
const SHARDS = 8;

const statusOf = async (it: MaasTestNode): Promise<Status> => ((await it.store.get('MaasMachine', KEY))?.status ?? {}) as Status;
const specOf = async (it: MaasTestNode) => ((await it.store.get('MaasMachine', KEY))?.spec ?? {}) as { providerID?: string; systemID?: string };
const deployedReason = (s: Status) => s.conditions?.find((c) => c.type === 'MachineDeployed')?.reason;
const route = (it: MaasTestNode, r: string) => it.sim.counts().byRoute[r] ?? 0;

test('maas commands - power-off holds a deployed machine off past the keep-on loop, power-on brings it back, release gives it back and fails the MaasMachine', async (t) => {
  const it = await startMaasNode({ config: { steadyPollMs: STEADY_MS, powerOnRequeueMs: STEADY_MS } });
  const bus = createMemoryBus();
  const commands = startCommandServer({ transport: bus.connect('node'), store: it.hosts.resources, shardCount: SHARDS, log: silentLogger });
  const cli = bus.connect('cli');
  const send = async (action: string, flags: { requestId?: string } = {}) => {
    const [outcome] = await sendHostCommands(cli, buildHostCommands(action, [KEY], { kind: 'MaasMachine', ...flags }), SHARDS, 5_000);
    t.true(outcome?.ok, outcome?.line);
    return outcome?.line ?? '';
  };
  try {
    t.true((await it.apply(generateMaasCluster({ controlPlane: 1, workers: 1 }))).ok);
    await waitUntil(async () => (await statusOf(it)).ready === true, 20_000, `${KEY} ready`);
    const { providerID, systemID = '' } = await specOf(it);
    t.regex(providerID ?? '', /^maas:\/\/\/az[12]\/[a-z0-9]{6}$/);

    // power-off: MAAS powers it off, and the keep-on loop leaves it off.
    t.regex(await send('power-off'), /will be held powered off .*\(state Deployed\)$/);
    await waitUntil(() => it.sim.machine(systemID)?.power_state === 'off', 10_000, 'sim machine off');
    await waitUntil(async () => deployedReason(await statusOf(it)) === 'MachinePoweredOffOnRequest', 10_000, 'status says it was asked');
    const offAt = Date.now();
    const powerOns = route(it, 'POST machines/{id}/ op=power_on');
    const gets = route(it, 'GET machines/{id}/');
    // At least two steady polls have passed (time, and reads of MAAS to show for it).
    await waitUntil(() => Date.now() - offAt >= 3 * STEADY_MS && route(it, 'GET machines/{id}/') >= gets + 6, 10_000, 'steady polls');
    t.is(it.sim.machine(systemID)?.power_state, 'off', 'still off after the keep-on loop ran');
    t.is(route(it, 'POST machines/{id}/ op=power_on'), powerOns, 'no power_on was sent');
    t.is(route(it, 'POST machines/{id}/ op=power_off'), 1);
    const held = await statusOf(it);
    t.false(held.ready);
    t.false(held.machinePowered);
    t.regex(held.conditions?.find((c) => c.type === 'MachineDeployed')?.message ?? '', /powered off on request \(metalfleet\.io\/power-off\)/);
    t.is(held.conditions?.find((c) => c.type === 'Ready')?.reason, 'MachinePoweredOffOnRequest');
    t.regex(await send('power-off'), /is already held powered off/);

    // power-on: the hold is removed and the keep-on loop powers it on.
    t.regex(await send('power-on'), /will be powered on/);
    await waitUntil(() => it.sim.machine(systemID)?.power_state === 'on', 10_000, 'sim machine on again');
    await waitUntil(async () => (await statusOf(it)).ready === true, 10_000, 'ready again');
    t.is(deployedReason(await statusOf(it)), 'MachineDeployed');

    // release: back to MAAS, the MaasMachine failed with its providerID kept.
    t.regex(await send('release', { requestId: 'rma-1' }), /will be released/);
    await waitUntil(() => it.sim.machine(systemID)?.status_name === 'Ready', 10_000, 'sim machine released (Ready)');
    await waitUntil(async () => (await statusOf(it)).failureReason !== undefined, 10_000, 'MaasMachine failed');
    const failed = await statusOf(it);
    t.is(failed.failureReason, 'UpdateError');
    t.is(failed.failureMessage, `MAAS machine ${systemID} was released by command rma-1`);
    t.false(failed.ready);
    t.is((await specOf(it)).providerID, providerID, 'providerID unchanged');
    t.is(it.sim.machine(systemID)?.owner, null);
    // Failed is terminal: nothing allocates or deploys for it, and commands are refused.
    const [refused] = await sendHostCommands(cli, buildHostCommands('power-on', [`maasmachine/${KEY}`], {}), SHARDS, 5_000);
    t.false(refused?.ok);
    t.regex(refused?.line ?? '', /error conflict: MaasMachine capi\/demo-worker-0 has failed/);
    const [reboot] = await sendHostCommands(cli, buildHostCommands('reboot', [KEY], { kind: 'maasmachine' }), SHARDS, 5_000);
    t.regex(reboot?.line ?? '', /error invalid: capi\/demo-worker-0 is a MaasMachine, which takes powerOn, powerOff, release, pause, unpause/);
    // The control plane was never touched.
    t.true(((await it.store.get('MaasMachine', 'capi/demo-cp-0'))?.status as Status).ready);
  } finally {
    await commands.close();
    await cli.close();
    await it.stop();
  }
});
