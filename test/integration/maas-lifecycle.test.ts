import test from 'ava';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import { startMaasNode } from '../support/maas-node.ts';
import { waitUntil } from '../support/wait.ts';

type Status = { ready?: boolean; machineState?: string; failureReason?: string; failureMessage?: string; addresses?: Array<{ type: string; address: string }> };
const status = async (it: Awaited<ReturnType<typeof startMaasNode>>, name: string) => (await it.store.get('MaasMachine', `capi/${name}`))?.status as Status | undefined;
const allReady = async (it: Awaited<ReturnType<typeof startMaasNode>>) => (await it.store.list('MaasMachine')).every((m) => (m.status as Status | undefined)?.ready === true);
const cpIps = async (it: Awaited<ReturnType<typeof startMaasNode>>) => (await it.store.list('MaasMachine'))
  .filter((m) => m.metadata.labels && 'cluster.x-k8s.io/control-plane' in m.metadata.labels && !m.metadata.deletionTimestamp)
  .map((m) => ((m.status as Status | undefined)?.addresses ?? []).find((a) => a.type === 'ExternalIP')?.address ?? '').sort();
const dnsIps = (it: Awaited<ReturnType<typeof startMaasNode>>) => [...(it.sim.dnsResources()[0]?.ips ?? [])].sort();
// The user data MAAS deployed a machine with, decoded (the API carries it base64-encoded).
const deployedUserData = (it: Awaited<ReturnType<typeof startMaasNode>>, systemId: string): string => {
  const raw = String((it.sim.machine(systemId) as { user_data?: string } | undefined)?.user_data ?? '');
  const decoded = Buffer.from(raw, 'base64').toString();
  return decoded.includes('#cloud-config') ? decoded : raw;
};

test('maas - a cluster comes up: every MaasMachine deployed and ready, DNS holding exactly the control-plane IPs', async (t) => {
  const it = await startMaasNode();
  try {
    t.true((await it.apply(generateMaasCluster({ controlPlane: 3, workers: 2 }))).ok);
    await waitUntil(() => allReady(it), 20_000, 'all MaasMachines ready');
    await waitUntil(async () => JSON.stringify(dnsIps(it)) === JSON.stringify(await cpIps(it)), 10_000, 'DNS = control-plane IPs');
    const machines = await it.store.list('MaasMachine');
    t.deepEqual(machines.map((m) => `${m.metadata.name} ${String((m.status as Status | undefined)?.ready)}`).sort(), ['demo-cp-0', 'demo-cp-1', 'demo-cp-2', 'demo-worker-0', 'demo-worker-1'].map((n) => `${n} true`));
    t.is(it.sim.machines().filter((m) => m.status_name === 'Deployed').length, 5);
    const controlPlaneIps = await cpIps(it);
    t.is(controlPlaneIps.length, 3);
    t.true(controlPlaneIps.every((ip) => ip !== ''), `every control-plane machine has an ExternalIP: ${controlPlaneIps.join(',')}`);
    t.deepEqual(dnsIps(it), controlPlaneIps);
    const cp0 = await it.store.get('MaasMachine', 'capi/demo-cp-0');
    const spec = cp0?.spec as { providerID?: string; systemID?: string; failureDomain?: string };
    t.regex(spec.providerID ?? '', /^maas:\/\/\/az[12]\/[a-z0-9]{6}$/);
    const simMachine = it.sim.machine(spec.systemID ?? '');
    t.is(simMachine?.status_name, 'Deployed');
    t.is(simMachine?.power_state, 'on');
    t.is(Buffer.from(String((simMachine as { user_data?: string }).user_data ?? ''), 'base64').toString().includes('hostname: demo-cp-0') || String((simMachine as { user_data?: string }).user_data ?? '').includes('hostname: demo-cp-0'), true);
    t.is(it.sim.dnsResources()[0]?.addressTtl, 10);
    const cluster = await it.store.get('MaasCluster', 'capi/demo');
    t.is((cluster?.status as { ready?: boolean }).ready, true);
    t.regex((cluster?.spec as { controlPlaneEndpoint?: { host?: string } }).controlPlaneEndpoint?.host ?? '', /^demo-[0-9a-f]{6}\.maas$/);
    // Deleting a worker releases its machine back to Ready.
    const w0 = (await it.store.get('MaasMachine', 'capi/demo-worker-0'))?.spec as { systemID?: string };
    await it.store.requestDelete('MaasMachine', 'capi/demo-worker-0');
    await waitUntil(async () => (await it.store.get('MaasMachine', 'capi/demo-worker-0')) === undefined, 10_000, 'worker gone');
    await waitUntil(() => it.sim.machine(w0.systemID ?? '')?.status_name === 'Ready', 10_000, 'machine back to Ready');
    t.is(await it.store.get('MaasMachine', 'capi/demo-worker-0'), undefined);
    t.is(it.sim.machine(w0.systemID ?? '')?.status_name, 'Ready');
    // Only the deleted worker's machine went back; the rest of the cluster stays deployed.
    t.is(it.sim.machines().filter((m) => m.status_name === 'Deployed').length, 4);
  } finally {
    await it.stop();
  }
});

// CAPMAAS: a MaasMachine whose deployment failed is failed for good (failureReason and
// failureMessage; Cluster API's MachineHealthCheck replaces its Machine). It keeps its MAAS
// machine, so its providerID and the Node's never disagree: nothing else is allocated for it.
test('maas - a failed deployment marks the MaasMachine failed; it keeps its machine and no other is allocated', async (t) => {
  let failed = '';
  const it = await startMaasNode({ sim: { faults: { failDeployment: (id: string) => (failed === '' || failed === id ? ((failed = id), true) : false) } } });
  try {
    t.true((await it.apply(generateMaasCluster({ controlPlane: 1, workers: 0 }))).ok);
    await waitUntil(async () => (await status(it, 'demo-cp-0'))?.failureReason !== undefined, 20_000, 'failed');
    const allocations = () => Object.entries(it.sim.counts().byRoute).filter(([route]) => route.endsWith('op=allocate')).reduce((n, [, c]) => n + c, 0);
    const check = async (): Promise<void> => {
      const machine = await it.store.get('MaasMachine', 'capi/demo-cp-0');
      const spec = machine?.spec as { providerID?: string; systemID?: string };
      const st = machine?.status as Status | undefined;
      t.truthy(failed);
      t.is(spec.systemID, failed);
      t.regex(spec.providerID ?? '', new RegExp(`^maas:///az[12]/${failed}$`));
      t.is(st?.failureReason, 'UpdateError');
      t.true((st?.failureMessage ?? '').includes(failed), st?.failureMessage);
      t.not(st?.ready, true);
      t.is(allocations(), 1);
      t.deepEqual(it.sim.machines().filter((m) => m.system_id !== failed && m.status_name !== 'Ready').map((m) => `${m.system_id} ${m.status_name}`), []);
    };
    await check();
    // Many polls later it is still the same: failed is terminal.
    await new Promise((r) => setTimeout(r, 1_000));
    await check();
    t.is(it.sim.machine(failed)?.status_name, 'Failed deployment');
  } finally {
    await it.stop();
  }
});

test('maas - a Deployed machine that powers itself off is powered on again', async (t) => {
  const it = await startMaasNode();
  try {
    t.true((await it.apply(generateMaasCluster({ controlPlane: 1, workers: 0 }))).ok);
    await waitUntil(async () => (await status(it, 'demo-cp-0'))?.ready === true, 20_000, 'ready');
    const id = ((await it.store.get('MaasMachine', 'capi/demo-cp-0'))?.spec as { systemID: string }).systemID;
    it.sim.powerOff(id);
    await waitUntil(async () => (await status(it, 'demo-cp-0'))?.ready === false || it.sim.machine(id)?.power_state === 'on', 5_000, 'noticed');
    await waitUntil(() => it.sim.machine(id)?.power_state === 'on', 10_000, 'powered on again');
    await waitUntil(async () => (await status(it, 'demo-cp-0'))?.ready === true, 10_000, 'ready again');
    t.is(it.sim.machine(id)?.status_name, 'Deployed');
  } finally {
    await it.stop();
  }
});

test('maas - the capacity limit holds in MAAS: never more machines Deploying than slots', async (t) => {
  const it = await startMaasNode({ limit: 2, sim: { deployMs: 150 } });
  try {
    t.true((await it.apply(generateMaasCluster({ controlPlane: 0, workers: 8 }))).ok);
    await waitUntil(() => allReady(it), 30_000, 'all ready');
    t.is(it.sim.counts().maxDeploying, 2);
  } finally {
    await it.stop();
  }
});

test('maas - DNS follows control-plane churn and is not wiped when every machine is briefly off', async (t) => {
  // Machines are looked at rarely here, so the power states the test writes stay put.
  const it = await startMaasNode({ config: { steadyPollMs: 60_000 } });
  try {
    t.true((await it.apply(generateMaasCluster({ controlPlane: 3, workers: 0 }))).ok);
    await waitUntil(() => allReady(it), 20_000, 'ready');
    await waitUntil(() => dnsIps(it).length === 3, 10_000, 'three attached');
    const all = await cpIps(it);
    t.deepEqual(dnsIps(it), all);
    const ipOf = async (n: string): Promise<string | undefined> => ((await it.store.get('MaasMachine', `capi/${n}`))?.status as Status | undefined)?.addresses?.find((a) => a.type === 'ExternalIP')?.address;
    const cp0Ip = await ipOf('demo-cp-0');
    const cp2Ip = await ipOf('demo-cp-2');
    // Machines are powered off and on through MAAS, as the power-off command does it: the
    // MaasMachine's power-off intent, acted on by its own actor (which writes machinePowered).
    const power = async (names: string[], on: boolean): Promise<void> => {
      for (const n of names) await it.store.patchAnnotations('MaasMachine', `capi/${n}`, { 'metalfleet.io/power-off': on ? null : '' });
      await waitUntil(() => names.every((n) => it.sim.machine(systemIdOf(n))?.power_state === (on ? 'on' : 'off')), 10_000, `${names.join(',')} ${on ? 'on' : 'off'} in MAAS`);
    };
    const systemIds = new Map<string, string>();
    for (const n of ['demo-cp-0', 'demo-cp-1', 'demo-cp-2']) systemIds.set(n, String(((await it.store.get('MaasMachine', `capi/${n}`))?.spec as { systemID?: string } | undefined)?.systemID));
    const systemIdOf = (n: string): string => systemIds.get(n) ?? '';
    const recordIps = async (): Promise<readonly string[]> => [...((await it.node.maas?.dns('capi/demo', 5_000))?.ips ?? [])].sort();
    // One control-plane machine off: its address leaves the record.
    await power(['demo-cp-0'], false);
    await waitUntil(async () => (await recordIps()).length === 2, 10_000, 'cp-0 detached');
    const withoutCp0 = all.filter((ip) => ip !== cp0Ip);
    t.is(withoutCp0.length, 2, `cp-0's address ${String(cp0Ip)} is one of ${all.join(',')}`);
    t.deepEqual(await recordIps(), withoutCp0);
    t.deepEqual(dnsIps(it), withoutCp0);
    // Every one of them off at once (a power blip): the record keeps what it had (PR #339).
    await power(['demo-cp-1', 'demo-cp-2'], false);
    await waitUntil(async () => (await it.store.list('MaasMachine')).every((m) => (m.status as { machinePowered?: boolean }).machinePowered === false), 10_000, 'all three seen off');
    t.deepEqual(await recordIps(), withoutCp0);
    t.deepEqual(dnsIps(it), withoutCp0);
    // Back on: all three again.
    await power(['demo-cp-0', 'demo-cp-1', 'demo-cp-2'], true);
    await waitUntil(async () => JSON.stringify(await recordIps()) === JSON.stringify(all), 15_000, 'all three attached again');
    t.deepEqual(dnsIps(it), all);
    // A deleted control-plane machine leaves the record.
    await it.store.requestDelete('MaasMachine', 'capi/demo-cp-2');
    await waitUntil(async () => JSON.stringify(dnsIps(it)) === JSON.stringify(await cpIps(it)) && dnsIps(it).length === 2, 10_000, 'DNS = remaining control plane');
    const withoutCp2 = all.filter((ip) => ip !== cp2Ip);
    t.is(withoutCp2.length, 2, `cp-2's address ${String(cp2Ip)} is one of ${all.join(',')}`);
    t.deepEqual(dnsIps(it), withoutCp2);
    // The cluster goes: its record is deleted too (CAPMAAS leaks it).
    for (const m of await it.store.list('MaasMachine')) await it.store.requestDelete('MaasMachine', `capi/${m.metadata.name}`);
    await it.store.requestDelete('MaasCluster', 'capi/demo');
    await waitUntil(() => it.sim.dnsResources().length === 0, 10_000, 'record deleted');
    await waitUntil(async () => (await it.store.get('MaasCluster', 'capi/demo')) === undefined, 10_000, 'cluster gone');
    t.deepEqual(it.sim.dnsResources(), []);
    t.is(await it.store.get('MaasCluster', 'capi/demo'), undefined);
  } finally {
    await it.stop();
  }
});

test('maas - waits for bootstrap data, then deploys with it', async (t) => {
  const it = await startMaasNode();
  try {
    const objects = generateMaasCluster({ controlPlane: 1, workers: 0 }).filter((o) => (o as { kind: string }).kind !== 'Secret');
    t.true((await it.apply(objects)).ok);
    await waitUntil(async () => ((await status(it, 'demo-cp-0')) as { conditions?: Array<{ reason?: string }> } | undefined)?.conditions?.some((c) => c.reason === 'WaitingForBootstrapData') ?? false, 5_000, 'waiting');
    t.is(it.sim.machines().filter((m) => m.status_name !== 'Ready').length, 0);
    t.true((await it.apply(generateMaasCluster({ controlPlane: 1, workers: 0 }).filter((o) => (o as { kind: string }).kind === 'Secret'))).ok);
    await waitUntil(async () => (await status(it, 'demo-cp-0'))?.ready === true, 20_000, 'ready');
    t.is((await status(it, 'demo-cp-0'))?.ready, true);
    const id = String(((await it.store.get('MaasMachine', 'capi/demo-cp-0'))?.spec as { systemID?: string } | undefined)?.systemID);
    t.is(it.sim.machine(id)?.status_name, 'Deployed');
    // Deployed with the bootstrap data that arrived late, not without it.
    t.is(deployedUserData(it, id).trimEnd(), '#cloud-config\nhostname: demo-cp-0');
  } finally {
    await it.stop();
  }
});

// A non-admin key cannot turn swap off (CAPMAAS #85), and its MaasCluster cannot keep the DNS
// record (that takes an admin key too), so the cluster's infrastructure is never provisioned by it:
// the Cluster says it is, as Cluster API would for a cluster whose endpoint is kept elsewhere.
async function clusterWithInfrastructure(it: Awaited<ReturnType<typeof startMaasNode>>, objects: unknown[]): Promise<boolean> {
  const ok = (await it.apply(objects)).ok;
  await it.store.writeStatus('Cluster', 'capi/demo', { infrastructureReady: true });
  return ok;
}

// Turning swap off is the one machine update (PUT machines/{id}/ swap_size=0) the node makes.
const swapCalls = (it: Awaited<ReturnType<typeof startMaasNode>>) => it.sim.counts().byRoute['PUT machines/{id}/'] ?? 0;

test('maas - a non-admin key cannot turn swap off: MAAS refuses it and the machine deploys with swap on', async (t) => {
  const it = await startMaasNode({ apiKey: 'user' });
  try {
    t.true(await clusterWithInfrastructure(it, generateMaasCluster({ controlPlane: 0, workers: 1 })));
    await waitUntil(() => allReady(it), 20_000, 'ready');
    t.is(swapCalls(it), 1, 'asked once to turn swap off');
    const id = ((await it.store.get('MaasMachine', 'capi/demo-worker-0'))?.spec as { systemID: string }).systemID;
    // Refused: the machine keeps the swap it had.
    t.is(it.sim.machine(id)?.swap_size, null);
  } finally {
    await it.stop();
  }
});

test('maas - a non-admin key with skipSwap does not ask to turn swap off and deploys', async (t) => {
  const it = await startMaasNode({ apiKey: 'user', config: { skipSwap: true } });
  try {
    t.true(await clusterWithInfrastructure(it, generateMaasCluster({ controlPlane: 0, workers: 1 })));
    await waitUntil(() => allReady(it), 20_000, 'ready');
    t.is(swapCalls(it), 0);
  } finally {
    await it.stop();
  }
});
