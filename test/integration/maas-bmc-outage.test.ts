// A BMC outage on deployed machines, end to end on one node against the MAAS simulator: MAAS reads
// their power as `error` / `unknown` for a while. CAPMAAS powered such a machine on, which MAAS's
// IPMI driver runs as a hard cycle (its PR #379); metalfleet sends no power action at all, says
// why in MachinePowerKnown, keeps the machines deployed and ready (and the control plane in DNS),
// and clears the condition once power reads on again.
import test from 'ava';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import { startMaasNode, type MaasTestNode } from '../support/maas-node.ts';
import { waitUntil } from '../support/wait.ts';

type Status = {
  ready?: boolean; machinePowered?: boolean; machineState?: string;
  conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
};
const WORKER = 'capi/demo-worker-0';
const CP = 'capi/demo-cp-0';
const STEADY_MS = 100;
const OUTAGE_MS = 1_500;

const statusOf = async (it: MaasTestNode, key: string): Promise<Status> => ((await it.store.get('MaasMachine', key))?.status ?? {}) as Status;
const systemIdOf = async (it: MaasTestNode, key: string): Promise<string> => String(((await it.store.get('MaasMachine', key))?.spec as { systemID?: string } | undefined)?.systemID ?? '');
const powerKnown = (s: Status) => s.conditions?.find((c) => c.type === 'MachinePowerKnown');
const gets = (it: MaasTestNode) => it.sim.counts().byRoute['GET machines/{id}/'] ?? 0;
const actions = (it: MaasTestNode, ids: readonly string[]) => ids.map((id) => ({ id, ...it.sim.powerActions(id) }));
const none = (ids: readonly string[]) => ids.map((id) => ({ id, powerOn: 0, powerOff: 0, cycle: 0 }));

test('maas bmc outage - deployed machines whose power reads error/unknown get no power action; the condition shows and clears; they stay deployed', async (t) => {
  const it = await startMaasNode({ config: { steadyPollMs: STEADY_MS, powerOnRequeueMs: STEADY_MS, powerRecheckMs: 50, powerRecheckMaxMs: 200 } });
  t.teardown(() => it.stop());
  t.true((await it.apply(generateMaasCluster({ controlPlane: 1, workers: 1 }))).ok);
  await waitUntil(async () => (await statusOf(it, WORKER)).ready === true && (await statusOf(it, CP)).ready === true, 20_000, 'both machines ready');
  await waitUntil(async () => (await statusOf(it, CP)).conditions?.find((c) => c.type === 'DNSAttached')?.status === 'True', 10_000, 'control plane in DNS');
  const worker = await systemIdOf(it, WORKER);
  const cp = await systemIdOf(it, CP);
  const ids = [worker, cp];
  const dnsBefore = it.sim.dnsResources();
  t.true(dnsBefore.some((r) => r.ips.length === 1), `the cluster's record holds the control plane: ${JSON.stringify(dnsBefore)}`);
  it.sim.resetCounts();

  // The outage: MAAS reads the worker's power as error, the control plane's as unknown.
  it.sim.setFaults({ bmcOutage: { [worker]: 'error', [cp]: 'unknown' } });
  const outageAt = Date.now();
  // The outage lasts OUTAGE_MS, over which power is read again and again (the backoff is capped at 200 ms).
  const getsAt = gets(it);
  await waitUntil(() => Date.now() - outageAt >= OUTAGE_MS && gets(it) >= getsAt + 10, 15_000, 'power re-read through the outage');
  t.deepEqual(actions(it, ids), none(ids), 'no power action during the outage');
  await waitUntil(async () => powerKnown(await statusOf(it, WORKER))?.status === 'False' && powerKnown(await statusOf(it, CP))?.status === 'False', 10_000, 'MachinePowerKnown=False on both');
  const during = await statusOf(it, WORKER);
  t.is(powerKnown(during)?.reason, 'PowerStateError');
  t.regex(powerKnown(during)?.message ?? '', new RegExp(`^MAAS reads power 'error' for machine ${worker} \\(its BMC may be unreachable\\); not powering on a deployed machine, which MAAS would hard-cycle; re-reading in \\d+ms$`));
  t.is(powerKnown(await statusOf(it, CP))?.reason, 'PowerStateUnknown');
  for (const key of [WORKER, CP]) {
    const s = await statusOf(it, key);
    t.true(s.ready, `${key} stays ready`);
    t.is(s.machineState, 'Deployed');
    t.true(s.machinePowered, `${key} keeps its last power read`);
  }
  t.deepEqual(it.sim.dnsResources(), dnsBefore, 'the control plane stays in the DNS record');

  // The BMCs answer again: the condition clears, and still nothing was powered.
  it.sim.setFaults({ bmcOutage: {} });
  await waitUntil(async () => powerKnown(await statusOf(it, WORKER)) === undefined && powerKnown(await statusOf(it, CP)) === undefined, 10_000, 'MachinePowerKnown cleared on both');
  const getsAfter = gets(it);
  await waitUntil(() => gets(it) >= getsAfter + 6, 10_000, 'steady polls after the outage');
  t.deepEqual(actions(it, ids), none(ids), 'no power action after the outage');
  for (const id of ids) {
    const m = it.sim.machine(id);
    t.is(m?.status_name, 'Deployed');
    t.is(m?.power_state, 'on');
  }
  t.true((await statusOf(it, WORKER)).ready);
  t.true((await statusOf(it, CP)).ready);
  t.deepEqual(it.sim.dnsResources(), dnsBefore);
});

test('maas bmc outage - a deployed machine found off once its BMC answers again is powered on then, and only then', async (t) => {
  const it = await startMaasNode({ config: { steadyPollMs: STEADY_MS, powerOnRequeueMs: STEADY_MS, powerRecheckMs: 50, powerRecheckMaxMs: 200 } });
  t.teardown(() => it.stop());
  t.true((await it.apply(generateMaasCluster({ controlPlane: 0, workers: 1 }))).ok);
  await waitUntil(async () => (await statusOf(it, WORKER)).ready === true, 20_000, 'worker ready');
  const worker = await systemIdOf(it, WORKER);
  it.sim.resetCounts();
  // The machine went down with its BMC: MAAS cannot tell until the BMC answers.
  it.sim.setFaults({ bmcOutage: { [worker]: 'error' } });
  it.sim.powerOff(worker);
  await waitUntil(async () => powerKnown(await statusOf(it, WORKER))?.status === 'False', 10_000, 'MachinePowerKnown=False');
  const getsAt = gets(it);
  await waitUntil(() => gets(it) >= getsAt + 6, 10_000, 'power re-read during the outage');
  t.deepEqual(it.sim.powerActions(worker), { powerOn: 0, powerOff: 0, cycle: 0 });
  it.sim.setFaults({ bmcOutage: {} });
  await waitUntil(() => it.sim.machine(worker)?.power_state === 'on', 10_000, 'powered on once read off');
  await waitUntil(async () => (await statusOf(it, WORKER)).ready === true && powerKnown(await statusOf(it, WORKER)) === undefined, 10_000, 'ready again');
  // A confirmed off is powered on, not cycled: MAAS read it off, so the BMC is answering.
  t.deepEqual(it.sim.powerActions(worker), { powerOn: 1, powerOff: 0, cycle: 0 });
});
