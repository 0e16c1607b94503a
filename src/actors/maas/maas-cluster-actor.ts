import { MAAS_CLUSTER_FINALIZER } from '../../api/index.ts';
import { DEFAULT_MAAS_CLUSTER_CONFIG, initialMaasClusterState, maasClusterLogic } from '../../machines/maas-cluster/index.ts';
import type { DnsCall, DnsCallResult, MaasClusterEffect, MaasClusterEvent, MaasClusterState } from '../../machines/maas-cluster/index.ts';
import type { Fence, Logger, MaasDriver, ObjectStore } from '../../ports/index.ts';
import type { Behavior, Clock, Reply, TimerHandle } from '../runtime/index.ts';
import { tell } from '../runtime/index.ts';
import { parseMaasCluster, resolveClusterWorld } from './context.ts';

export { MAAS_CLUSTER_FINALIZER };

export type MaasClusterMsg = { type: 'tick' } | { type: 'snapshot'; reply: Reply<{ dnsName: string | null; ips: readonly string[] }> };

export interface MaasClusterDeps {
  readonly store: ObjectStore;
  readonly driver: MaasDriver;
  readonly clock: Clock;
  readonly log: Logger;
  readonly resyncMs: number;
  readonly random: () => number;
  /** The DNS record changed: wake the cluster's machines (a deleting control plane waits on it). */
  readonly onDnsChanged?: () => void;
  /** The shard lease this cluster runs under: stamped on every write. */
  readonly fence?: Fence;
}

interface ClusterActorState {
  cluster: MaasClusterState | null;
  timer: TimerHandle | null;
  readonly suffix: string;
}

// A step's DNS calls run within the turn: a few short calls, and a snapshot asked after a wake-up
// then sees the record as that wake-up left it (the mailbox is FIFO).
const MAX_CALLS_PER_TURN = 8;

// One actor per MaasCluster, thin: on every wake-up it reads the MaasCluster, its Cluster and the
// cluster's MaasMachines from the store, typed, steps the pure machine (maasClusterLogic) and
// performs its effects. Wake-ups come from machine status changes and its own requeues.
export function maasClusterBehavior(key: string, deps: MaasClusterDeps): Behavior<ClusterActorState, MaasClusterMsg> {
  const config = { ...DEFAULT_MAAS_CLUSTER_CONFIG, resyncMs: deps.resyncMs };
  return {
    kind: 'maas-cluster',
    init: (ctx) => {
      deps.clock.setTimeout(() => tell(ctx.self, { type: 'tick' }), 0);
      const suffix = Math.floor(deps.random() * 0xffffff).toString(16).padStart(6, '0');
      return { cluster: null, timer: null, suffix };
    },
    receive: async (s, msg, ctx) => {
      if (msg.type === 'snapshot') {
        const record = s.cluster?.record ?? null;
        msg.reply({ dnsName: record?.fqdn ?? null, ips: record?.ips ?? [] });
        return s;
      }
      const stored = await deps.store.get('MaasCluster', key);
      const object = stored ? parseMaasCluster(stored, deps.log) : null;
      if (!object) return s;
      const world = await resolveClusterWorld(deps.store, object, deps.log);
      s.cluster ??= initialMaasClusterState(object, s.suffix, config, world);
      let event: MaasClusterEvent = { type: 'observed', object, world };
      for (let calls = 0; calls <= MAX_CALLS_PER_TURN; calls++) {
        const { state, effects } = maasClusterLogic.step(s.cluster, event, deps.clock.now());
        s.cluster = state;
        let next: MaasClusterEvent | null = null;
        for (const e of effects) {
          if (e.type === 'dns') next = { type: 'dnsResult', seq: e.seq, result: await dns(e.call) };
          else await perform(s, e, () => tell(ctx.self, { type: 'tick' }));
        }
        if (!next) break;
        event = next;
      }
      return s;
    },
    onStop: (s) => {
      if (s.timer) deps.clock.clearTimeout(s.timer);
    },
    describe: (s) => ({ dnsName: s.cluster?.record?.fqdn ?? null, ips: s.cluster?.record?.ips.length ?? 0, phase: s.cluster?.phase ?? null }),
  };

  async function dns(call: DnsCall): Promise<DnsCallResult> {
    try {
      switch (call.op) {
        case 'find': {
          const record = await deps.driver.findDns(call.fqdn);
          return record ? { kind: 'record', record } : { kind: 'none' };
        }
        case 'create':
          return { kind: 'record', record: await deps.driver.createDns(call.fqdn, call.ttl, call.ips) };
        case 'update': {
          const record = await deps.driver.updateDns(call.id, call.ips);
          deps.log.info({ maasCluster: key, ips: record.ips }, 'control-plane DNS updated');
          return { kind: 'record', record };
        }
        case 'delete':
          await deps.driver.deleteDns(call.id);
          return { kind: 'none' };
      }
    } catch (err) {
      return { kind: 'failed', message: err instanceof Error ? err.message : String(err) };
    }
  }

  async function perform(s: ClusterActorState, e: Exclude<MaasClusterEffect, { type: 'dns' }>, wake: () => void): Promise<void> {
    try {
      switch (e.type) {
        case 'writeStatus':
          await deps.store.writeStatus('MaasCluster', key, e.status as unknown as Record<string, unknown>, deps.fence);
          return;
        case 'writeSpec':
          await deps.store.patchSpec('MaasCluster', key, { ...e.patch }, deps.fence);
          return;
        case 'addFinalizer':
          await deps.store.addFinalizer('MaasCluster', key, e.finalizer, deps.fence);
          return;
        case 'removeFinalizer':
          await deps.store.removeFinalizer('MaasCluster', key, e.finalizer, deps.fence);
          return;
        case 'notifyMembers':
          deps.onDnsChanged?.();
          return;
        case 'requeue':
          if (s.timer) deps.clock.clearTimeout(s.timer);
          s.timer = deps.clock.setTimeout(() => {
            s.timer = null;
            wake();
          }, e.afterMs);
          return;
        case 'event':
          if (e.severity === 'Warning') deps.log.warn({ maasCluster: key, reason: e.reason }, e.message);
          else deps.log.info({ maasCluster: key, reason: e.reason }, e.message);
      }
    } catch (err) {
      deps.log.warn({ maasCluster: key, effect: e.type, err: err instanceof Error ? err.message : String(err) }, 'a MaasCluster write failed');
    }
  }
}
