import { appendFileSync } from 'node:fs';
import { spawnCapacityProxy, startClusterBroker, CAPACITY_BUCKET } from '../../actors/capacity/cluster/index.ts';
import type { ClusterBroker } from '../../actors/capacity/cluster/index.ts';
import type { CapacityFigures, CapacityMsg } from '../../actors/capacity/index.ts';
import type { ClusterNode, NodeConfig } from '../../actors/node/index.ts';
import { startClusterNode } from '../../actors/node/index.ts';
import { clusterSource } from '../../actors/node/introspection-source.ts';
import type { ActorRef, ActorSystem } from '../../actors/runtime/index.ts';
import { ask, systemClock } from '../../actors/runtime/index.ts';
import type { HealthServer } from '../../adapters/observe/index.ts';
import { startHealthServer } from '../../adapters/observe/index.ts';
import type { KubeAdapter } from '../../adapters/kube/index.ts';
import { registerKubeMetrics } from '../../adapters/kube/index.ts';
import { openNatsStoreOn } from '../../adapters/store/nats-store.ts';
import type { SecretSource } from '../../adapters/store/nats-secrets.ts';
import { createCommandServer } from '../../cluster/command-server.ts';
import { MEMBER_BUCKET, serveIntrospection } from '../../cluster/introspect/index.ts';
import type { Membership, ShardLeases } from '../../cluster/index.ts';
import { OwnershipRecorder, startMembership, startShardLeases } from '../../cluster/index.ts';
import type { Singleton } from '../../cluster/singleton.ts';
import { startSingleton } from '../../cluster/singleton.ts';
import type { HostStore, Logger, Provisioner, Transport } from '../../ports/index.ts';

// The buckets of one cluster. Leases and heartbeats carry a bucket TTL (server 2.9 has no
// per-key TTL), so a dead holder's key vanishes on its own.
export const LEASE_BUCKET = 'mf-leases';
export { MEMBER_BUCKET };
const BROKER_LEASE_KEY = 'broker';

export interface ClusterNodeSettings {
  readonly node: NodeConfig;
  readonly leaseTtlMs: number;
  readonly heartbeatMs: number;
  readonly drainTimeoutMs: number;
  /** KV replicas of the cluster's buckets (3 in production, reference/peers.md B4). */
  readonly replicas: number;
  readonly healthPort: number | null;
  /** Append ownership records (JSON lines) here: the cluster tests check no two owners overlap. */
  readonly ownershipLog?: string;
}

export interface ClusterNodeParts {
  readonly transport: Transport;
  readonly provisioner: Provisioner;
  readonly secrets?: SecretSource;
  /**
   * Hosts and Secrets from Kubernetes instead of the NATS store (NATS still carries leases,
   * membership, capacity and commands). Started in the node's actor system; the node starts
   * driving hosts once its informers have listed.
   */
  readonly kube?: KubeAdapter;
  readonly log: Logger;
}

export interface RunningNode {
  readonly name: string;
  readonly node: ClusterNode;
  readonly store: HostStore;
  readonly health: HealthServer | null;
  isBroker(): boolean;
  /** graceful: hand every shard off, give up the broker lease, leave membership (SIGTERM). */
  stop(options: { graceful: boolean }): Promise<void>;
}

export async function runClusterNode(settings: ClusterNodeSettings, parts: ClusterNodeParts): Promise<RunningNode> {
  const { transport, log } = parts;
  const name = settings.node.name;
  const clock = systemClock;
  const kvOptions = settings.replicas > 1 ? { replicas: settings.replicas } : {};
  const [leaseBucket, memberBucket, capacityBucket] = await Promise.all([
    transport.kv(LEASE_BUCKET, { ...kvOptions, ttlMs: settings.leaseTtlMs }),
    transport.kv(MEMBER_BUCKET, { ...kvOptions, ttlMs: settings.leaseTtlMs }),
    transport.kv(CAPACITY_BUCKET, kvOptions),
  ]);
  const kube = parts.kube;
  const store: HostStore = kube ? kube.hosts : await openNatsStoreOn(transport, { ...(parts.secrets ? { secrets: parts.secrets } : {}), log, kv: kvOptions });

  let broker: ClusterBroker | null = null;
  const electedHandlers: Array<(epoch: number) => void> = [];
  const deposedHandlers: Array<(reason: string) => void> = [];
  const leadership = { onElected: (fn: (e: number) => void) => void electedHandlers.push(fn), onDeposed: (fn: (r: string) => void) => void deposedHandlers.push(fn) };

  let commands: ReturnType<typeof createCommandServer> | null = null;
  let proxy: ActorRef<CapacityMsg> | null = null;
  const node = await startClusterNode({ ...settings.node, drainTimeoutMs: settings.drainTimeoutMs }, {
    store,
    provisioner: parts.provisioner,
    log,
    clock,
    broker: (system) => {
      broker = startClusterBroker(system, {
        transport, kv: capacityBucket, leadership, defaultLimit: settings.node.capacity.defaultLimit,
        limits: settings.node.capacity.limits, ttlMs: settings.node.capacity.ttlMs, clock, logger: log,
      });
      proxy = spawnCapacityProxy(system, { transport, node: name, ttlMs: settings.node.capacity.ttlMs, clock });
      return proxy;
    },
    onShardStarted: (shard) => commands?.open(shard),
    onShardStopped: (shard) => commands?.close(shard),
    ...(kube ? { attach: (system: ActorSystem) => kube.start(system) } : {}),
  });
  commands = createCommandServer({ transport, store, shardCount: settings.node.shardCount, owns: (key) => node.owns(key), log });

  const singleton: Singleton = await startSingleton({
    bucket: leaseBucket, key: BROKER_LEASE_KEY, holder: name, ttlMs: settings.leaseTtlMs, clock, log,
    onElected: (epoch) => {
      for (const fn of electedHandlers) fn(epoch);
    },
    onDeposed: (reason) => {
      for (const fn of deposedHandlers) fn(reason);
    },
  });

  // Answering before the first heartbeat: a node the CLI finds in membership can be asked.
  const introspection = clusterSource({
    node, store, isBroker: () => singleton.isLeader(),
    backend: parts.provisioner.name === 'fixture' ? 'fixture' : 'ironic',
    brokerFigures: () => {
      const ref = proxy as ActorRef<CapacityMsg> | null;
      if (!ref) return Promise.reject(new Error('the capacity proxy is not running'));
      return ask<CapacityMsg, CapacityFigures>(ref, (reply) => ({ type: 'figures', reply }), settings.node.askTimeoutMs);
    },
  }, { clock });
  const introspect = serveIntrospection(transport, introspection, { node: name });

  const membership: Membership = await startMembership({
    bucket: memberBucket, self: name, heartbeatMs: settings.heartbeatMs, deadAfterMs: settings.leaseTtlMs, clock, log,
    info: { pid: String(process.pid) },
  });

  const recorder = new OwnershipRecorder();
  const events = settings.ownershipLog
    ? recorder.wrap(name, node.ownership)
    : node.ownership;
  if (settings.ownershipLog) {
    // Written as each record is made, synchronously: a node killed with -9 keeps what it wrote.
    const file = settings.ownershipLog;
    const original = recorder.record.bind(recorder);
    recorder.record = (r) => {
      original(r);
      appendFileSync(file, `${JSON.stringify(r)}\n`);
    };
  }
  const leases: ShardLeases = await startShardLeases({
    bucket: leaseBucket, membership, self: name, shardCount: settings.node.shardCount,
    leaseTtlMs: settings.leaseTtlMs, clock, log, events,
  });

  let connected = true;
  transport.onStatus((status) => {
    connected = status === 'connected';
  });
  const health = settings.healthPort === null ? null : await startHealthServer({
    live: () => true,
    ready: () => {
      if (!connected) return { ready: false, reason: 'NATS disconnected' };
      if (!membership.healthy) return { ready: false, reason: 'heartbeats are failing' };
      if (kube && !kube.isSynced) return { ready: false, reason: 'Kubernetes informers not synced' };
      return { ready: true };
    },
    hostsByState: () => node.stats.byState,
    shardsOwned: () => node.owned().size,
    mailboxDepth: () => node.system.registry.list({ summary: false }).reduce((n, a) => n + a.mailboxDepth, 0),
    slots: () => null,
  }, { port: settings.healthPort, node: name });
  if (health && kube) registerKubeMetrics(health.registry, kube);

  let stopping: Promise<void> | null = null;
  return {
    name,
    node,
    store,
    health,
    isBroker: () => singleton.isLeader(),
    stop({ graceful }) {
      stopping ??= (async () => {
        // Leave first so the others stop sending this node shards, then hand off what it holds.
        if (graceful) await membership.leave().catch(() => undefined);
        else await membership.stop().catch(() => undefined);
        await leases.stop({ graceful });
        await singleton.stop({ release: graceful });
        (broker as ClusterBroker | null)?.stop();
        await commands?.closeAll();
        await introspect.close();
        introspection.close();
        await node.stop(settings.drainTimeoutMs);
        await store.close?.();
        await kube?.close();
        await health?.close();
      })();
      return stopping;
    },
  };
}
