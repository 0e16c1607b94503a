import { dnsNameFor, planDns } from '../../machines/maas-cluster/index.ts';
import type { ControlPlaneMember } from '../../machines/maas-cluster/index.ts';
import { RUNNING } from '../../machines/maas-machine/index.ts';
import type { DnsRecord, Logger, MaasDriver, ObjectStore, StoredObject } from '../../ports/index.ts';
import type { Behavior, Clock, Reply, TimerHandle } from '../runtime/index.ts';
import { tell } from '../runtime/index.ts';
import { CLUSTER_LABEL, CONTROL_PLANE_LABEL } from './context.ts';

export const MAAS_CLUSTER_FINALIZER = 'maascluster.infrastructure.cluster.x-k8s.io';
// CAPMAAS creates the API record with a 10 s TTL so control-plane changes spread fast.
const DNS_TTL = 10;

export type MaasClusterMsg = { type: 'tick' } | { type: 'snapshot'; reply: Reply<{ dnsName: string | null; ips: readonly string[] }> };

export interface MaasClusterDeps {
  readonly store: ObjectStore;
  readonly driver: MaasDriver;
  readonly clock: Clock;
  readonly log: Logger;
  readonly resyncMs: number;
  readonly random: () => number;
}

interface ClusterState {
  record: DnsRecord | null;
  timer: TimerHandle | null;
  failures: number;
  readonly suffix: string;
}

// One actor per MaasCluster: keeps its control-plane DNS record (create with TTL 10, attach the
// running control-plane machines, never wipe it on a brief all-off) and deletes the record when
// the cluster goes, which CAPMAAS never does. Wake-ups come from machine status changes.
export function maasClusterBehavior(key: string, deps: MaasClusterDeps): Behavior<ClusterState, MaasClusterMsg> {
  return {
    kind: 'maas-cluster',
    init: (ctx) => {
      deps.clock.setTimeout(() => tell(ctx.self, { type: 'tick' }), 0);
      const suffix = Math.floor(deps.random() * 0xffffff).toString(16).padStart(6, '0');
      return { record: null, timer: null, failures: 0, suffix };
    },
    receive: async (s, msg, ctx) => {
      if (msg.type === 'snapshot') {
        msg.reply({ dnsName: s.record?.fqdn ?? null, ips: s.record?.ips ?? [] });
        return s;
      }
      let next = deps.resyncMs;
      try {
        next = await reconcile(s);
        s.failures = 0;
      } catch (err) {
        s.failures += 1;
        next = Math.min(1000 * 2 ** s.failures, 60_000);
        deps.log.warn({ maasCluster: key, err: err instanceof Error ? err.message : String(err) }, 'DNS reconcile failed');
        await setCondition(key, deps, 'False', 'LoadBalancerFailed', err instanceof Error ? err.message : String(err)).catch(() => undefined);
      }
      if (next > 0) {
        if (s.timer) deps.clock.clearTimeout(s.timer);
        s.timer = deps.clock.setTimeout(() => tell(ctx.self, { type: 'tick' }), next);
      }
      return s;
    },
    onStop: (s) => {
      if (s.timer) deps.clock.clearTimeout(s.timer);
    },
    describe: (s) => ({ dnsName: s.record?.fqdn ?? null, ips: s.record?.ips.length ?? 0 }),
  };

  // Returns when to look again (0 = only on a wake-up).
  async function reconcile(s: ClusterState): Promise<number> {
    const cluster = await deps.store.get('MaasCluster', key);
    if (!cluster) return 0;
    const name = cluster.metadata.labels?.[CLUSTER_LABEL] ?? cluster.metadata.name;
    const members = await controlPlane(cluster, name);
    if (cluster.metadata.deletionTimestamp) {
      if (members.all > 0) return 2_000;
      const dnsName = (cluster.status?.['network'] as { dnsName?: string } | undefined)?.dnsName;
      const record = s.record ?? (dnsName ? await deps.driver.findDns(dnsName) : null);
      if (record) await deps.driver.deleteDns(record.id);
      s.record = null;
      await deps.store.removeFinalizer('MaasCluster', key, MAAS_CLUSTER_FINALIZER);
      return 0;
    }
    if (!cluster.metadata.finalizers?.includes(MAAS_CLUSTER_FINALIZER)) await deps.store.addFinalizer('MaasCluster', key, MAAS_CLUSTER_FINALIZER);
    const spec = (cluster.spec ?? {}) as { dnsDomain?: string; controlPlaneEndpoint?: { host?: string; port?: number } };
    const capi = await owningCluster(cluster);
    const capiEndpoint = (capi?.spec?.['controlPlaneEndpoint'] as { host?: string } | undefined)?.host;
    const statusName = (cluster.status?.['network'] as { dnsName?: string } | undefined)?.dnsName;
    const dnsName = dnsNameFor({ endpointHost: capiEndpoint, statusName, cluster: name, dnsDomain: spec.dnsDomain ?? 'maas', suffix: s.suffix });
    if (!s.record || s.record.fqdn !== dnsName) s.record = (await deps.driver.findDns(dnsName)) ?? (await deps.driver.createDns(dnsName, DNS_TTL, []));
    const plan = planDns(s.record.ips, members.list);
    if (plan.changed) {
      s.record = await deps.driver.updateDns(s.record.id, plan.ips);
      deps.log.info({ maasCluster: key, attached: plan.attached, detached: plan.detached }, 'control-plane DNS updated');
    }
    const port = (capi?.spec?.['clusterNetwork'] as { apiServerPort?: number } | undefined)?.apiServerPort ?? 6443;
    if (spec.controlPlaneEndpoint?.host !== dnsName) await deps.store.patchSpec('MaasCluster', key, { controlPlaneEndpoint: { host: dnsName, port } });
    const status = {
      ...(cluster.status ?? {}),
      ready: true,
      initialization: { provisioned: true },
      network: { dnsName },
      failureDomains: ((cluster.spec?.['failureDomains'] as string[] | undefined) ?? []).map((f) => ({ name: f, controlPlane: true })),
      conditions: conditions(cluster, 'True', 'LoadBalancerReady'),
    };
    if (JSON.stringify(status) !== JSON.stringify(cluster.status ?? {})) await deps.store.writeStatus('MaasCluster', key, status);
    return deps.resyncMs;
  }

  async function controlPlane(cluster: StoredObject, name: string): Promise<{ all: number; list: ControlPlaneMember[] }> {
    const machines = (await deps.store.list('MaasMachine')).filter((m) => m.metadata.namespace === cluster.metadata.namespace && m.metadata.labels?.[CLUSTER_LABEL] === name);
    const list = machines.filter((m) => m.metadata.labels && CONTROL_PLANE_LABEL in m.metadata.labels).map((m): ControlPlaneMember => {
      const st = (m.status ?? {}) as { machinePowered?: boolean; machineState?: string; addresses?: Array<{ type: string; address: string }> };
      return {
        key: `${m.metadata.namespace}/${m.metadata.name}`,
        ips: (st.addresses ?? []).filter((a) => a.type === 'ExternalIP').map((a) => a.address),
        running: st.machinePowered === true && RUNNING.has(st.machineState ?? ''),
        deleting: Boolean(m.metadata.deletionTimestamp),
      };
    });
    return { all: machines.length, list };
  }

  async function owningCluster(cluster: StoredObject): Promise<StoredObject | undefined> {
    const owner = cluster.metadata.ownerReferences?.find((r) => r.kind === 'Cluster');
    const name = owner?.name ?? cluster.metadata.labels?.[CLUSTER_LABEL] ?? cluster.metadata.name;
    return deps.store.get('Cluster', `${cluster.metadata.namespace}/${name}`);
  }
}

function conditions(cluster: StoredObject, status: 'True' | 'False', reason: string, message?: string): unknown[] {
  const prev = ((cluster.status?.['conditions'] as Array<{ type: string; status: string; lastTransitionTime?: string }> | undefined) ?? []);
  const keep = prev.find((c) => c.type === 'LoadBalancerReady' && c.status === status)?.lastTransitionTime;
  const stamp = keep ?? new Date().toISOString();
  const entry = (type: string) => ({ type, status, reason: type === 'Ready' ? reason : reason, ...(message ? { message } : {}), lastTransitionTime: stamp });
  return [...prev.filter((c) => c.type !== 'LoadBalancerReady' && c.type !== 'Ready'), entry('LoadBalancerReady'), entry('Ready')];
}

async function setCondition(key: string, deps: MaasClusterDeps, status: 'False', reason: string, message: string): Promise<void> {
  const cluster = await deps.store.get('MaasCluster', key);
  if (!cluster) return;
  await deps.store.writeStatus('MaasCluster', key, { ...(cluster.status ?? {}), ready: false, conditions: conditions(cluster, status, reason, message) });
}
