// Typed Cluster API objects and helpers for the MaasMachine and MaasCluster machine tests.
import { CapiCluster, CapiMachine, MaasCluster, MaasMachine } from '../../src/api/index.ts';
import { DEFAULT_MAAS_MACHINE_CONFIG, initialMaasMachineState, stepMaasMachine } from '../../src/machines/maas-machine/index.ts';
import type { MaasMachineConfig, MaasMachineEffect, MaasMachineEvent, MaasMachineState, MaasMachineStep, MaasMachineWorld, MaasResult, MaasView } from '../../src/machines/maas-machine/index.ts';

export const T0 = Date.parse('2026-01-01T00:00:00Z');
export const FINALIZER = 'maasmachine.infrastructure.cluster.x-k8s.io';
const CP = 'cluster.x-k8s.io/control-plane';

export type MachineSpecPatch = Partial<MaasMachine['spec']>;
export type MetaPatch = Partial<MaasMachine['metadata']>;

export const maasMachine = (spec: MachineSpecPatch = {}, meta: MetaPatch = {}, controlPlane = true): MaasMachine => MaasMachine.parse({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine',
  metadata: { name: 'cp-0', namespace: 'default', finalizers: [FINALIZER], labels: { 'cluster.x-k8s.io/cluster-name': 'c1', ...(controlPlane ? { [CP]: '' } : {}) }, ...meta },
  spec: { minCPU: 4, minMemory: 8192, image: 'ubuntu/jammy', tags: ['fast', 'ssd'], resourcePool: 'default', ...spec },
});

export const capiMachine = (o: { secret?: string | null; failureDomain?: string } = {}): CapiMachine => CapiMachine.parse({
  apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', metadata: { name: 'cp-0', namespace: 'default' },
  spec: { clusterName: 'c1', bootstrap: o.secret === null ? {} : { dataSecretName: o.secret ?? 'cp-0-bootstrap' }, infrastructureRef: { kind: 'MaasMachine', name: 'cp-0' }, failureDomain: o.failureDomain ?? 'az1' },
});

export const capiCluster = (o: { ready?: boolean; paused?: boolean; annotations?: Record<string, string> } = {}): CapiCluster => CapiCluster.parse({
  apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', metadata: { name: 'c1', namespace: 'default', ...(o.annotations ? { annotations: o.annotations } : {}) },
  spec: { ...(o.paused ? { paused: true } : {}), infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'MaasCluster', name: 'c1' } },
  status: { initialization: { infrastructureProvisioned: o.ready ?? true } },
});

export const maasCluster = (o: { ready?: boolean; dnsName?: string } = {}): MaasCluster => MaasCluster.parse({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasCluster', metadata: { name: 'c1', namespace: 'default' },
  spec: { dnsDomain: 'maas' },
  status: { ready: o.ready ?? true, network: { dnsName: o.dnsName ?? 'c1-abcdef.maas' } },
});

export const world = (o: Partial<MaasMachineWorld> = {}): MaasMachineWorld => ({
  machine: capiMachine(), cluster: capiCluster(), maasCluster: maasCluster(), bootstrapDataReady: true, ...o,
});

export const view = (statusName: string, powerState = 'on', systemId = 'abc123'): MaasView => ({
  systemId, hostname: `m-${systemId}`, fqdn: `m-${systemId}.maas`, statusName, powerState, ipAddresses: ['10.10.1.5'], zone: 'az1',
});

export const start = (o: MaasMachine = maasMachine(), w: MaasMachineWorld = world(), config: Partial<MaasMachineConfig> = {}): MaasMachineState =>
  initialMaasMachineState(o, { ...DEFAULT_MAAS_MACHINE_CONFIG, ...config }, w);
export const send = (s: MaasMachineState, e: MaasMachineEvent, now = T0): MaasMachineStep => stepMaasMachine(s, e, now);
export const tick = (s: MaasMachineState, now = T0): MaasMachineStep => send(s, { type: 'tick' }, now);
export const grant = (s: MaasMachineState, now = T0): MaasMachineStep => send(s, { type: 'slotGranted', grantId: 'g' }, now);
export const observe = (s: MaasMachineState, object: MaasMachine, w: MaasMachineWorld = s.world, now = T0): MaasMachineStep => send(s, { type: 'observed', object, world: w }, now);
export const calls = (st: MaasMachineStep) => st.effects.flatMap((e) => (e.type === 'call' ? [e.call] : []));
export const types = (st: MaasMachineStep) => st.effects.map((e) => e.type);
export const condition = (s: MaasMachineState, type: string) => s.status.conditions?.find((c) => c.type === type);

export const reply = (st: MaasMachineStep, result: MaasResult, now = T0): MaasMachineStep => {
  const c = st.effects.find((e): e is Extract<MaasMachineEffect, { type: 'call' }> => e.type === 'call');
  if (!c) throw new Error(`no call in ${JSON.stringify(types(st))}`);
  return send(st.state, { type: 'result', seq: c.seq, result }, now);
};

export const dnsReply = (st: MaasMachineStep, ips: readonly string[] | null, now = T0): MaasMachineStep => {
  const c = st.effects.find((e): e is Extract<MaasMachineEffect, { type: 'dnsLookup' }> => e.type === 'dnsLookup');
  if (!c) throw new Error(`no DNS lookup in ${JSON.stringify(types(st))}`);
  return send(st.state, { type: 'dnsResult', seq: c.seq, result: ips === null ? { kind: 'none' } : { kind: 'found', ips } }, now);
};

/** MAAS holds nothing under the machine's agent name: the answer to the look before it allocates (adopt.ts). */
export const noneEarlier = (st: MaasMachineStep, now = T0): MaasMachineStep => {
  const c = calls(st)[0];
  if (c?.op !== 'findAllocated') throw new Error(`expected findAllocated, not ${JSON.stringify(calls(st))}`);
  return reply(st, { kind: 'listed', machines: [] }, now);
};

/** A worker (no DNS) brought to MAAS Deploying; skipSwap so the deploy follows the allocation. */
export function deploying(config: Partial<MaasMachineConfig> = {}, controlPlane = false): MaasMachineStep {
  const s1 = grant(noneEarlier(tick(start(maasMachine({}, {}, controlPlane), world(), { skipSwap: true, ...config }))).state);
  const s2 = reply(s1, { kind: 'done', machine: view('Allocated', 'off') });
  return reply(s2, { kind: 'done', machine: view('Deploying') });
}

/** A control-plane machine Deployed, on, and attached in DNS. */
export function deployedControlPlane(): MaasMachineStep {
  const d = deploying({}, true);
  const got = reply(tick(d.state, T0 + 10_000), { kind: 'done', machine: view('Deployed', 'on') }, T0 + 10_000);
  return dnsReply(got, ['10.10.1.5'], T0 + 10_000);
}
