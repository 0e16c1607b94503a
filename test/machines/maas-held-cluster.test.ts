// The MaasCluster's read of a control-plane machine's interfaces (spec.apiServerInterface) when
// another MAAS user holds the machine, against the simulator with two users: metalfleet's key is
// the non-admin user's, and MAAS refuses it a read of a machine another user holds (403, and the
// machine is left out of the user's listing). It used to fail as a plain 403 that held up the
// whole record (every other member's change waited behind its backoff).
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { MaasCluster, MaasMachine, MetalfleetError } from '../../src/api/index.ts';
import { createMaasClient, MaasError } from '../../src/adapters/maas/client/index.ts';
import type { MaasClient } from '../../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../../src/adapters/maas/driver/index.ts';
import { dnsSuffixOf, initialMaasClusterState, stepMaasCluster } from '../../src/machines/maas-cluster/index.ts';
import type { IpCallResult, MaasClusterEffect, MaasClusterState, MaasClusterStep } from '../../src/machines/maas-cluster/index.ts';
import type { MaasDriver } from '../../src/ports/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { ipFailure } from '../../src/actors/maas/maas-cluster-actor.ts';
import type { SeedMachine } from '../../src/sim/maas/index.ts';
import { T0, capiCluster } from './maas-fixtures.ts';

const FINALIZER = 'maascluster.infrastructure.cluster.x-k8s.io';
const SPEC = { dnsDomain: 'maas', failureDomains: ['az1'], apiServerInterface: { tag: 'api' } };
const mc = () => MaasCluster.parse({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasCluster',
  metadata: { name: 'c1', namespace: 'default', uid: 'uid-c1', finalizers: [FINALIZER] }, spec: SPEC,
});
const NAME = `c1-${dnsSuffixOf(mc())}.maas`;
const member = (name: string, systemId: string, ip: string, running = true) => MaasMachine.parse({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine',
  metadata: { name, namespace: 'default', labels: { 'cluster.x-k8s.io/control-plane': '' } },
  spec: { minCPU: 1, minMemory: 1, image: 'u', systemID: systemId },
  status: { ready: running, machineState: 'Deployed', machinePowered: running, addresses: [{ type: 'ExternalIP', address: ip }] },
});
const ipCalls = (st: MaasClusterStep) => st.effects.flatMap((e) => (e.type === 'ip' ? [e.call] : []));
const dnsCalls = (st: MaasClusterStep) => st.effects.flatMap((e) => (e.type === 'dns' ? [e.call] : []));
const events = (st: MaasClusterStep) => st.effects.flatMap((e) => (e.type === 'event' ? [e] : []));
const cond = (s: MaasClusterState, type: string) => s.status.conditions?.find((c) => c.type === type);
const observed = (s: MaasClusterState, machines: MaasMachine[], now = T0) =>
  stepMaasCluster(s, { type: 'observed', object: s.object, world: { cluster: capiCluster(), machines } }, now);
const dnsAnswer = (st: MaasClusterStep, ips: string[], now = T0) => {
  const c = st.effects.find((e): e is Extract<MaasClusterEffect, { type: 'dns' }> => e.type === 'dns');
  if (!c) throw new Error(`no DNS call in ${JSON.stringify(st.effects.map((e) => e.type))}`);
  return stepMaasCluster(st.state, { type: 'dnsResult', seq: c.seq, result: { kind: 'record', record: { id: 7, fqdn: NAME, ips } } }, now);
};

// What the cluster's actor answers an interfaces call with (actors/maas/maas-cluster-actor.ts, ip()):
// the driver's NICs, or its error as a failure.
async function interfacesResult(driver: MaasDriver, systemId: string): Promise<IpCallResult> {
  try {
    return { kind: 'interfaces', nics: (await driver.machineInterfaces?.(systemId)) ?? null };
  } catch (err) {
    return ipFailure(err);
  }
}
async function answerInterfaces(st: MaasClusterStep, driver: MaasDriver, now = T0): Promise<MaasClusterStep> {
  const c = st.effects.find((e): e is Extract<MaasClusterEffect, { type: 'ip' }> => e.type === 'ip');
  if (c?.call.op !== 'interfaces') throw new Error(`no interfaces call in ${JSON.stringify(st.effects)}`);
  return stepMaasCluster(st.state, { type: 'ipResult', seq: c.seq, result: await interfacesResult(driver, c.call.systemId) }, now);
}

const SEEDS: SeedMachine[] = [
  { hostname: 'taken', systemId: 'aaa111', zone: 'az1', cpuCount: 2, memoryMb: 2048, status: 'Deployed', owner: 'admin', nics: [{ name: 'eth0' }, { name: 'eth1', subnet: '10.20.0.0/24', tags: ['api'] }] },
  { hostname: 'ours', systemId: 'bbb222', zone: 'az1', cpuCount: 2, memoryMb: 2048, status: 'Deployed', owner: 'user', nics: [{ name: 'eth0' }, { name: 'eth1', subnet: '10.20.0.0/24', tags: ['api'] }] },
];

async function userDriver(t: ExecutionContext, machines: SeedMachine[] = SEEDS) {
  const sim = await startMaasSim({ machines });
  t.teardown(() => sim.stop());
  const clientFor = (apiKey: string) => {
    const client = createMaasClient({ endpoint: sim.url, apiKey });
    t.teardown(() => client.close());
    return client;
  };
  const admin = createMaasDriver(clientFor(sim.adminKey));
  // The address of a machine's api-tagged NIC, as an admin reads it.
  const apiIp = async (id: string) => (await admin.machineInterfaces?.(id))?.find((n) => n.tags.includes('api'))?.addresses[0]?.ip ?? '';
  return { sim, clientFor, apiIp, driver: createMaasDriver(clientFor(sim.userKey)) };
}

test('maas held cluster - the driver: interfaces of a machine another MAAS user holds fail as a typed, non-retryable heldByAnotherUser naming the machine, not a plain 403; its own machine reads', async (t) => {
  const { sim, driver } = await userDriver(t);
  const err = await t.throwsAsync(driver.machineInterfaces?.('aaa111') ?? Promise.resolve());
  t.true(err instanceof MetalfleetError, String(err));
  t.is((err as MetalfleetError).code, 'heldByAnotherUser');
  t.false((err as MetalfleetError).retryable);
  t.regex(err?.message ?? '', /MAAS machine aaa111 is held by another MAAS user/);
  t.regex(err?.message ?? '', /only its owner or a MAAS admin/i);
  t.false((err?.message ?? '').includes(sim.userKey.split(':')[2] ?? '-'), 'no part of the key');
  t.deepEqual((await driver.machineInterfaces?.('bbb222'))?.map((n) => n.name), ['eth0', 'eth1']);
});

test('maas held cluster - the driver: a key MAAS refuses everything (read and listing 403) stays a plain forbidden, not held by another user', async (t) => {
  const { sim, clientFor } = await userDriver(t);
  const client = clientFor(sim.userKey);
  const forbidden = new MaasError('GET /machines/: MAAS answered 403', { code: 'forbidden', status: 403, retryable: false, maasMessage: '', call: 'GET /machines/', route: 'GET /machines/', attempts: 1 });
  const refusing: MaasClient = { ...client, listMachines: () => Promise.reject(forbidden) };
  const err = await t.throwsAsync(createMaasDriver(refusing).machineInterfaces?.('aaa111') ?? Promise.resolve());
  t.true(err instanceof MaasError, String(err));
  t.is((err as MaasError).code, 'forbidden');
});

test('maas held cluster - a control-plane machine another MAAS user holds is named in DNSAttached and an event; the rest of the record goes on, and nothing of it is published', async (t) => {
  const { sim, driver, apiIp } = await userDriver(t);
  const ourIp = await apiIp('bbb222');
  const machines = [member('cp-0', 'aaa111', '10.10.1.10'), member('cp-1', 'bbb222', '10.10.1.11')];
  const s0 = observed(initialMaasClusterState(mc()), machines);
  const active = dnsAnswer(s0, []);
  t.deepEqual(ipCalls(active), [{ op: 'interfaces', systemId: 'aaa111' }]);
  const held = await answerInterfaces(active, driver);
  // Not a backoff that holds up the record: the next member is read in the same step.
  t.deepEqual(ipCalls(held), [{ op: 'interfaces', systemId: 'bbb222' }]);
  t.deepEqual(events(held).map((e) => [e.severity, e.reason]), [['Warning', 'MachineHeldByAnotherUser']]);
  t.regex(events(held)[0]?.message ?? '', /another MAAS user holds MAAS machine aaa111 \(MaasMachine cp-0\)/);
  const read = await answerInterfaces(held, driver);
  // cp-0's NICs were never read, so it has no address to publish; cp-1's goes in.
  t.deepEqual(dnsCalls(read), [{ op: 'update', id: 7, ips: [ourIp] }]);
  const done = dnsAnswer(read, [ourIp]);
  const c = cond(done.state, 'DNSAttached');
  t.is(c?.status, 'False');
  t.is(c?.reason, 'MachineHeldByAnotherUser');
  t.regex(c?.message ?? '', /another MAAS user holds MAAS machine aaa111 \(MaasMachine cp-0\)/);
  t.regex(c?.message ?? '', /only its owner or a MAAS admin can release it/i);
  t.false((c?.message ?? '').includes(sim.userKey.split(':')[2] ?? '-'), 'no part of the key');
  t.is(cond(done.state, 'APIServerAvailable')?.status, 'True', 'cp-1 serves the name');
  t.is(done.state.lastError, null);
  // The held machine is not asked about again before resyncMs, and no event repeats.
  const later = observed(done.state, machines, T0 + 1_000);
  t.deepEqual(ipCalls(later), []);
  t.deepEqual(dnsCalls(later), []);
  t.deepEqual(events(later), []);
});

test('maas held cluster - a machine read before another MAAS user took it keeps its address, as CAPMAAS keeps a member its MaasMachine calls running; it leaves the record once its MaasMachine stops running', async (t) => {
  // First the machine is this key's own: its chosen address is published.
  const ours = SEEDS.map((m) => (m.systemId === 'aaa111' ? { ...m, owner: 'user' } : m));
  const before = await userDriver(t, ours);
  const machines = [member('cp-0', 'aaa111', '10.10.1.10'), member('cp-1', 'bbb222', '10.10.1.11')];
  const active = dnsAnswer(observed(initialMaasClusterState(mc()), machines), []);
  const both = await answerInterfaces(await answerInterfaces(active, before.driver), before.driver);
  const ips = [await before.apiIp('aaa111'), await before.apiIp('bbb222')].sort();
  t.deepEqual(dnsCalls(both), [{ op: 'update', id: 7, ips }]);
  const published = dnsAnswer(both, ips);
  t.is(cond(published.state, 'DNSAttached')?.status, 'True');

  // Then another MAAS user holds it (the same fleet, aaa111 now the admin's).
  const after = await userDriver(t, before.sim.seeds().map((m) => (m.systemId === 'aaa111' ? { ...m, owner: 'admin' } : m)));
  const resync = observed(published.state, machines, T0 + 30_000);
  const reread = dnsAnswer(resync, ips, T0 + 30_000);
  t.deepEqual(ipCalls(reread), [{ op: 'interfaces', systemId: 'aaa111' }]);
  const held = await answerInterfaces(reread, after.driver, T0 + 30_000);
  const settled = await answerInterfaces(held, after.driver, T0 + 30_000);
  t.deepEqual(dnsCalls(settled), [], 'the record keeps both addresses');
  t.is(cond(settled.state, 'DNSAttached')?.reason, 'MachineHeldByAnotherUser');
  t.regex(cond(settled.state, 'DNSAttached')?.message ?? '', /aaa111.*cp-0/);

  // Its MaasMachine no longer running (failed, or released by command): it leaves the record.
  const stopped = observed(settled.state, [member('cp-0', 'aaa111', '10.10.1.10', false), machines[1] as MaasMachine], T0 + 31_000);
  t.deepEqual(dnsCalls(stopped), [{ op: 'update', id: 7, ips: [await before.apiIp('bbb222')] }]);
});
