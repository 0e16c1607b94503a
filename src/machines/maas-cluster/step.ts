import { isCapiPaused, MAAS_CLUSTER_FINALIZER } from '../../api/index.ts';
import type { MaasCluster } from '../../api/index.ts';
import { applyDnsResult } from './results.ts';
import { applyIpResult } from './vip-results.ts';
import { HANDLERS } from './states.ts';
import { Turn } from './turn.ts';
import type { MaasClusterConfig, MaasClusterEvent, MaasClusterState, MaasClusterStep, MaasClusterWorld } from './types.ts';
import { DEFAULT_MAAS_CLUSTER_CONFIG } from './types.ts';

const MAX_TRANSITIONS = 4;

/** A MaasCluster seen for the first time (or again by a new owner: its DNS name is derived, not drawn). */
export function initialMaasClusterState(object: MaasCluster, config: MaasClusterConfig = DEFAULT_MAAS_CLUSTER_CONFIG, world: MaasClusterWorld = { cluster: null, machines: [] }): MaasClusterState {
  return {
    config, object, world, phase: 'pending', record: null, recordAt: null,
    status: { ...object.status, ready: object.status?.ready ?? false },
    inFlight: null, seq: 0, attempts: 0, failedOp: null, retryAt: null, lastError: null, waiting: null, gone: false, vipLooked: false, nics: {},
  };
}

// CAPMAAS's MaasCluster reconcile (reference/capmaas.md §2.2) as a pure step.
export function stepMaasCluster(state: MaasClusterState, event: MaasClusterEvent, now: number): MaasClusterStep {
  if (state.gone) return { state, effects: [] };
  const t = new Turn(state, now);
  switch (event.type) {
    case 'observed':
      t.s.object = event.object;
      t.s.world = event.world;
      break;
    case 'dnsResult': {
      const inFlight = t.s.inFlight;
      if (!inFlight || inFlight.seq !== event.seq) return { state, effects: [] };
      const op = inFlight.op;
      if (op !== 'find' && op !== 'create' && op !== 'update' && op !== 'delete') return { state, effects: [] };
      t.s.inFlight = null;
      applyDnsResult(t, op, inFlight.fqdn, event.result);
      break;
    }
    case 'ipResult': {
      const inFlight = t.s.inFlight;
      if (!inFlight || inFlight.seq !== event.seq) return { state, effects: [] };
      t.s.inFlight = null;
      applyIpResult(t, inFlight, event.result);
      break;
    }
    case 'tick':
      break;
  }
  drive(t);
  return t.finish();
}

function drive(t: Turn): void {
  if (t.phase === 'gone') return;
  if (t.s.object.metadata.deletionTimestamp !== undefined && t.phase !== 'deleting') t.transition('deleting');
  const cluster = t.s.world.cluster;
  const paused = cluster && (isCapiPaused(cluster, cluster) || isCapiPaused(cluster, t.s.object));
  if (paused || t.s.object.metadata.annotations?.['cluster.x-k8s.io/paused'] !== undefined) {
    t.s.waiting = `Cluster ${cluster?.metadata.name ?? ''} or MaasCluster ${t.s.object.metadata.name} is paused`;
    t.condition('Paused', { status: 'True', reason: 'Paused', message: t.s.waiting });
    return;
  }
  if (t.s.status.conditions?.some((c) => c.type === 'Paused' && c.status === 'True')) t.condition('Paused', { status: 'False', reason: 'NotPaused' });
  // CAPMAAS waits for the Cluster (its owner); a deletion goes on without it.
  if (!cluster && t.phase !== 'deleting') {
    t.s.waiting = `waiting for the Cluster of MaasCluster ${t.s.object.metadata.name}`;
    return;
  }
  if (t.phase !== 'deleting') t.s.waiting = null;
  if (t.s.inFlight) return;
  if (t.s.retryAt !== null && t.now < t.s.retryAt) {
    t.requeue(t.s.retryAt - t.now);
    return;
  }
  t.s.retryAt = null;
  const finalizers = t.s.object.metadata.finalizers ?? [];
  if (t.phase !== 'deleting' && !finalizers.includes(MAAS_CLUSTER_FINALIZER)) {
    t.effects.push({ type: 'addFinalizer', finalizer: MAAS_CLUSTER_FINALIZER });
    t.s.object = { ...t.s.object, metadata: { ...t.s.object.metadata, finalizers: [...finalizers, MAAS_CLUSTER_FINALIZER] } };
  }
  for (let i = 0; i < MAX_TRANSITIONS && HANDLERS[t.phase](t); i++);
}
