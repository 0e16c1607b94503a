import { appendFileSync } from 'node:fs';
import { pushToProxy, spawnCapacityProxy, startClusterBroker, CAPACITY_BUCKET } from '../actors/capacity/cluster/index.ts';
import type { ClusterBroker } from '../actors/capacity/cluster/index.ts';
import type { CapacityFigures, CapacityMsg } from '../actors/capacity/index.ts';
import type { ActorRef, ActorSystem, Clock } from '../actors/runtime/index.ts';
import { ask, systemClock } from '../actors/runtime/index.ts';
import type { HealthServer, PoolSlots } from '../adapters/observe/index.ts';
import { BmoMetrics, backendRequestsOf, mailboxDepthByKind, startHealthServer } from '../adapters/observe/index.ts';
import type { KubeAdapter } from '../adapters/kube/index.ts';
import { registerKubeMetrics } from '../adapters/kube/metrics.ts';
import { apiServerUnreachable, watchJetStream } from './readiness.ts';
import type { JetStreamWatch } from './readiness.ts';
import { HostNotFound, openNatsStoreOn } from '../adapters/store/nats-store.ts';
import { openKvObjectStoreOn, storedKindOf } from '../adapters/store/kv-object-store.ts';
import type { KvObjectStore } from '../adapters/store/kv-object-store.ts';
import { validateMaasCluster, validateMaasMachine } from '../api/index.ts';
import type { NatsStore } from '../adapters/store/nats-store.ts';
import type { SecretSource } from '../adapters/store/nats-secrets.ts';
import { watchSecretsByKey } from '../adapters/store/secret-changes.ts';
import type { KeyedSecretWatch } from '../adapters/store/secret-changes.ts';
import type { CommandServer } from '../cluster/command-server.ts';
import { startCommandServer } from '../cluster/command-server.ts';
import { MEMBER_BUCKET, serveIntrospection } from '../cluster/introspect/index.ts';
import { commandGate, createUiHandler } from '../ui/index.ts';
import type { Membership, ShardLeases } from '../cluster/index.ts';
import { OwnershipRecorder, startMembership, startShardLeases } from '../cluster/index.ts';
import { startSingleton } from '../cluster/singleton.ts';
import { askJetStream, subjects as clusterSubjects } from '../bus/index.ts';
import { checkPosture, openPosture } from '../security/index.ts';
import { startStoreServer, type StoreServer } from '../cluster/commands/index.ts';
import { DEFAULT_MAAS_MACHINE_CONFIG } from '../machines/maas-machine/index.ts';
import type { MaasMachineConfig, MaasMachineState } from '../machines/maas-machine/index.ts';
import type { HostStore, Logger, MaasDriver, ObjectStore, Provisioner } from '../ports/index.ts';
import type { NodeConfig } from './config.ts';
import { clusterTiming } from './config.ts';
import type { HostSnapshot } from '../actors/host/index.ts';
import type { FleetStats } from './fleet-stats.ts';
import type { IntrospectionSource } from './introspection-source.ts';
import { nodeSource } from './introspection-source.ts';
import type { MaasShards, ShardHost } from './shard-host.ts';
import { startShardHost } from './shard-host.ts';
import type { Substrate } from './substrate.ts';

// The buckets of one cluster. Leases and heartbeats carry a bucket TTL (server 2.9 has no
// per-key TTL), so a dead holder's key vanishes on its own.
export const LEASE_BUCKET = 'mf-leases';
export { MEMBER_BUCKET };
const BROKER_LEASE_KEY = 'broker';

/** Where the node's resources live. Absent `hosts`: the KV store on the substrate's buckets. */
export interface NodeStores {
  readonly hosts?: HostStore;
  /** Secrets for the KV store (BMC credentials, user data): never written to KV. */
  readonly secrets?: SecretSource;
  /** MaasMachines, MaasClusters and the Cluster API objects they read; with `backends.maas`. */
  readonly objects?: ObjectStore;
  /**
   * Hosts, Secrets (and, with `backends.maas`, the MAAS kinds) from Kubernetes: started in the
   * node's actor system; the node drives hosts once its informers have listed.
   */
  readonly kube?: KubeAdapter;
}

export interface NodeBackends {
  readonly provisioner: Provisioner;
  readonly maas?: { readonly driver: MaasDriver; readonly config?: Partial<MaasMachineConfig>; readonly clusterResyncMs?: number };
}

export interface NodeRuntime {
  readonly log: Logger;
  /** Told as soon as the health server listens, before the stores sync and shards are taken. */
  readonly onHealth?: (health: HealthServer | null) => void;
  readonly clock?: Clock;
  readonly random?: () => number;
  /**
   * Awaited once the health server listens, before anything that could drive a host starts
   * (informers, stores' writers, shards): the Kubernetes leader lease. /readyz says `waitingFor`.
   * `held`, when given, is asked right before every backend call of every kind, beside the
   * shard's own lease: a process whose loop stalled past its renew deadline drives nothing.
   */
  readonly gate?: { readonly waitingFor: string; readonly open: Promise<void>; readonly held?: () => boolean };
}

export interface Node {
  readonly name: string;
  /** The shard actors, their system and what they report. */
  readonly shards: ShardHost;
  /** What the host actors report: per-state counts and a summary per host (shards.stats). */
  readonly stats: FleetStats;
  readonly system: ActorSystem;
  /** The host actor's view of a host, when its shard is owned here. */
  snapshot(key: string): Promise<HostSnapshot | null>;
  readonly store: HostStore;
  readonly health: HealthServer | null;
  /** The MAAS kinds of the shards this node owns; null without a MAAS backend. */
  readonly maas: MaasShards | null;
  readonly introspection: IntrospectionSource;
  isBroker(): boolean;
  /** The cluster-wide capacity figures, from the broker (whichever node holds it). */
  capacity(): Promise<CapacityFigures>;
  /** The newest state of each MaasMachine this node drives, and since when (clock ms). */
  maasMachines(): ReadonlyMap<string, { readonly state: MaasMachineState; readonly since: number }>;
  /** graceful: hand every shard off, give up the broker lease, leave membership (SIGTERM). */
  stop(options?: { graceful?: boolean }): Promise<void>;
}

/**
 * The one engine every mode runs: membership, shard leases, shard actors, the capacity broker
 * (cluster singleton) and its proxy, commands and introspection, on a substrate. On NATS this is
 * one node of a cluster; on the memory substrate it is the embedded default, a one-node cluster
 * running exactly the same code.
 */
export async function startNode(config: NodeConfig, substrate: Substrate, stores: NodeStores, backends: NodeBackends, runtime: NodeRuntime): Promise<Node> {
  const { transport } = substrate;
  const { log } = runtime;
  const name = config.name;
  const clock = runtime.clock ?? systemClock;
  const timing = clusterTiming(config, substrate.shared);
  // Before anything opens: a NATS node that would take anyone's commands does not start.
  checkPosture(substrate.shared, config.security);
  const kvOptions = timing.replicas > 1 ? { replicas: timing.replicas } : {};
  const [leaseBucket, memberBucket, capacityBucket] = await Promise.all([
    transport.kv(LEASE_BUCKET, { ...kvOptions, ttlMs: timing.leaseTtlMs }),
    transport.kv(MEMBER_BUCKET, { ...kvOptions, ttlMs: timing.leaseTtlMs }),
    transport.kv(CAPACITY_BUCKET, kvOptions),
  ]);
  const kube = stores.kube;
  const secretWatch = watchSecrets(kube?.secrets ?? stores.secrets, log);
  let opened: NatsStore | null = null;
  const store: HostStore = kube?.hosts ?? stores.hosts ?? (opened = await openNatsStoreOn(transport, { ...(stores.secrets ? { secrets: stores.secrets } : {}), log, kv: kvOptions }));
  let openedObjects: KvObjectStore | null = null;
  // MaasMachines and MaasClusters: from Kubernetes, as given, or the KV object store beside the hosts.
  const objects: ObjectStore | undefined = kube?.objects ?? stores.objects ?? (backends.maas
    ? (openedObjects = await openKvObjectStoreOn(transport, { ...(stores.secrets ? { secrets: stores.secrets } : {}), log, kv: kvOptions, validators: { MaasMachine: validateMaasMachine, MaasCluster: validateMaasCluster } }))
    : undefined);

  // Health first: /readyz answers "not ready" while informers list and shards are taken.
  let connected = true;
  let gateOpen = runtime.gate === undefined;
  void runtime.gate?.open.then(() => { gateOpen = true; }, () => undefined);
  transport.onStatus((status) => {
    connected = status === 'connected';
  });
  // Set once the health server listens (only /readyz reads it).
  let jetstream: JetStreamWatch | null = null;
  let running: { shards: ShardHost; membership: Membership; maas: MaasShards | null; store: HostStore; objects: ObjectStore | undefined; pools: () => Promise<readonly PoolSlots[] | null> } | null = null;
  // The dashboard on the health port, at the same address: the whole cluster seen from here,
  // read-only unless the node was given a command token.
  const healthBind = config.healthBind ?? '127.0.0.1';
  const ui = config.healthPort === undefined || config.healthPort === null ? null : createUiHandler({
    transport,
    gate: commandGate(config.uiCommands ? { enabled: true, token: config.uiCommands.token } : { enabled: false }),
    signingKey: config.uiCommands?.signingKey,
    shardCount: config.shardCount,
    bind: healthBind,
  });
  const health = config.healthPort === undefined || config.healthPort === null ? null : await startHealthServer({
    live: () => running === null || running.shards.system.state === 'running',
    ready: () => {
      if (!connected) return { ready: false, reason: `${transport.name} disconnected` };
      const jetstreamDown = jetstream?.reason() ?? null;
      if (jetstreamDown !== null) return { ready: false, reason: jetstreamDown };
      if (!gateOpen && runtime.gate) return { ready: false, reason: runtime.gate.waitingFor };
      if (kube && !kube.isSynced) {
        const waiting = kube.informers().filter((i) => !i.synced).map((i) => `${i.resource}${i.lastError ? ` (${i.lastError})` : ''}`);
        return { ready: false, reason: `Kubernetes informers not synced: ${waiting.join(', ') || 'starting'}` };
      }
      const unreachable = kube ? apiServerUnreachable(kube.informers(), clock.now()) : null;
      if (unreachable !== null) return { ready: false, reason: unreachable };
      if (running === null) return { ready: false, reason: 'starting the node' };
      if (!running.membership.healthy) return { ready: false, reason: 'heartbeats are failing' };
      return { ready: true };
    },
    hostsByState: () => running?.shards.stats.byState ?? new Map(),
    staleFenceRefusals: () => (running?.store.staleFenceRefusals?.() ?? 0) + (running?.objects?.staleFenceRefusals?.() ?? 0),
    maasMachinesByState: () => {
      const counts = new Map<string, number>();
      for (const { state } of running?.maas?.machines().values() ?? []) {
        const name = state.status.machineState ?? state.phase;
        counts.set(name, (counts.get(name) ?? 0) + 1);
      }
      return counts;
    },
    shardsOwned: () => running?.shards.owned().size ?? 0,
    mailboxDepth: () => mailboxDepthByKind(running?.shards.system.registry.list({ summary: false }) ?? []),
    capacityPools: () => running?.pools() ?? Promise.resolve(null),
    backendRequests: backendRequestsOf(backends.provisioner),
  }, { port: config.healthPort, host: healthBind, node: name, ...(ui ? { routes: (req, res) => ui.handle(req, res) } : {}) });
  if (health && kube) registerKubeMetrics(health.registry, kube);
  // Connected is not enough on a clustered NATS: without a quorum of its servers JetStream takes
  // no write, so no lease renews and no heartbeat lands. A private bus has no JetStream to ask.
  if (health && substrate.shared) {
    jetstream = watchJetStream({ ask: () => askJetStream(transport, Math.max(1_000, 2 * timing.heartbeatMs)), everyMs: timing.heartbeatMs, clock });
  }
  runtime.onHealth?.(health);
  try {
    await runtime.gate?.open;
    return await assemble();
  } catch (err) {
    jetstream?.stop();
    secretWatch?.close();
    ui?.close();
    await health?.close();
    throw err;
  }

  async function assemble(): Promise<Node> {
    let broker: ClusterBroker | null = null;
    const electedHandlers: Array<(epoch: number) => void> = [];
    const deposedHandlers: Array<(reason: string) => void> = [];
    const leadership = { onElected: (fn: (e: number) => void) => void electedHandlers.push(fn), onDeposed: (fn: (r: string) => void) => void deposedHandlers.push(fn) };

    let proxy: ActorRef<CapacityMsg> | null = null;
    const shards = await startShardHost({ ...config, drainTimeoutMs: timing.drainTimeoutMs }, {
      store,
      provisioner: backends.provisioner,
      log,
      clock,
      ...(runtime.random ? { random: runtime.random } : {}),
      broker: (system) => {
        broker = startClusterBroker(system, {
          transport, kv: capacityBucket, leadership, defaultLimit: config.capacity.defaultLimit,
          limits: config.capacity.limits, ttlMs: config.capacity.ttlMs, clock, logger: log,
          localPush: (node, push) => node === name && proxy !== null && pushToProxy(proxy, push, clock.now()),
        });
        proxy = spawnCapacityProxy(system, {
        transport, node: name, ttlMs: config.capacity.ttlMs, clock,
        localBroker: (req) => (broker as ClusterBroker | null)?.request(req) ?? null,
      });
        return proxy;
      },
      ...(kube ? { attach: (system: ActorSystem) => kube.start(system) } : {}),
      ...(secretWatch ? { secrets: secretWatch } : {}),
      ...(runtime.gate?.held ? { nodeLeaseHeld: runtime.gate.held } : {}),
      // The MAAS kinds run in the same shards as the hosts, under the same supervision and drain.
      ...(backends.maas && objects ? {
        maas: {
          store: objects, driver: backends.maas.driver, config: { ...DEFAULT_MAAS_MACHINE_CONFIG, ...backends.maas.config },
          clusterResyncMs: backends.maas.clusterResyncMs ?? 30_000,
        },
      } : {}),
    });
    const maas: MaasShards | null = shards.maas;
    // BMO's metal3_* metrics, fed by what the host actors report, before any shard is taken.
    if (health) shards.stats.follow(new BmoMetrics(health.registry, shards.system.registry));
    const posture = await openPosture(transport, substrate.shared, config.security, clusterSubjects(), log, timing.replicas);
    const commands: CommandServer = startCommandServer({ transport, store, objects, shardCount: config.shardCount, log, guard: posture.guard, audit: posture.audit, node: name });
    // apply and delete over NATS come here (only nodes write the stores); a node whose hosts live
    // in Kubernetes leaves them to kubectl. The object store is opened on the first object applied.
    let appliedObjects: Promise<KvObjectStore> | null = null;
    const storeRequests: StoreServer | null = opened && substrate.shared ? startStoreServer({
      transport, store: opened, guard: posture.guard, audit: posture.audit, node: name, log,
      isObject: (object) => storedKindOf(object) !== null,
      isNotFound: (error) => error instanceof HostNotFound,
      objects: () => (appliedObjects ??= openedObjects
        ? Promise.resolve(openedObjects)
        : openKvObjectStoreOn(transport, { ...(stores.secrets ? { secrets: stores.secrets } : {}), log, kv: kvOptions, validators: { MaasMachine: validateMaasMachine, MaasCluster: validateMaasCluster } })),
    }) : null;

    const singleton = await startSingleton({
      bucket: leaseBucket, key: BROKER_LEASE_KEY, holder: name, ttlMs: timing.leaseTtlMs, clock, log,
      onElected: (epoch) => {
        for (const fn of electedHandlers) fn(epoch);
      },
      onDeposed: (reason) => {
        for (const fn of deposedHandlers) fn(reason);
      },
    });
    const brokerFigures = (): Promise<CapacityFigures> => {
      const ref = proxy as ActorRef<CapacityMsg> | null;
      if (!ref) return Promise.reject(new Error('the capacity proxy is not running'));
      return ask<CapacityMsg, CapacityFigures>(ref, (reply) => ({ type: 'figures', reply }), config.askTimeoutMs);
    };

    const noMachines = new Map<string, { state: MaasMachineState; since: number }>();
    const maasMachines = (): ReadonlyMap<string, { readonly state: MaasMachineState; readonly since: number }> => maas?.machines() ?? noMachines;

    // Answering before the first heartbeat: a node the CLI finds in membership can be asked.
    const introspection = nodeSource({
      node: shards, store, isBroker: () => singleton.isLeader(),
      backend: backends.provisioner.name === 'fixture' ? 'fixture' : 'ironic',
      brokerFigures,
      maasMachines,
    }, { clock });
    const introspect = serveIntrospection(transport, introspection, { node: name });
    // Hosts ask for slots as soon as their shard starts: give the broker (here, or on a peer) a
    // moment to answer first, so they are not all sent into retry backoff at once.
    await untilBrokerAnswers(brokerFigures, timing.leaseTtlMs, clock);

    const membership: Membership = await startMembership({
      bucket: memberBucket, self: name, heartbeatMs: timing.heartbeatMs, deadAfterMs: timing.leaseTtlMs, clock, log,
      info: { pid: String(process.pid) },
      // Nobody else can join a private bus: take every shard at once.
      ...(substrate.shared ? {} : { settleMs: 0 }),
    });

    // The broker's pools, on the broker's node only: each pool is reported once in a cluster.
    const pools = (): Promise<readonly PoolSlots[] | null> => (singleton.isLeader() ? brokerFigures().then((f) => f.pools) : Promise.resolve(null));
    running = { shards, membership, maas, store, objects, pools };
    const events = config.ownershipLog ? recordOwnership(name, config.ownershipLog, shards) : shards.ownership;
    const leases: ShardLeases = await startShardLeases({
      bucket: leaseBucket, membership, self: name, shardCount: config.shardCount,
      leaseTtlMs: timing.leaseTtlMs, clock, log, events,
    });

    let stopping: Promise<void> | null = null;
    return {
      name,
      shards,
      stats: shards.stats,
      system: shards.system,
      snapshot: (key) => shards.snapshot(key),
      store,
      health,
      maas,
      introspection,
      isBroker: () => singleton.isLeader(),
      capacity: brokerFigures,
      maasMachines,
      stop({ graceful = true } = {}) {
        stopping ??= (async () => {
          // Leave first so the others stop sending this node shards, then hand off what it holds.
          if (graceful) await membership.leave().catch(() => undefined);
          else await membership.stop().catch(() => undefined);
          await leases.stop({ graceful });
          await singleton.stop({ release: graceful });
          (broker as ClusterBroker | null)?.stop();
          await commands.close();
          await storeRequests?.close();
          if (appliedObjects && !openedObjects) await (await appliedObjects.catch(() => null))?.close();
          await introspect.close();
          introspection.close();
          await shards.stop(timing.drainTimeoutMs);
          secretWatch?.close();
          await opened?.close();
          await openedObjects?.close();
          await kube?.close();
          ui?.close();
          jetstream?.stop();
          await health?.close();
        })();
        return stopping;
      },
    };
  }
}

// Hosts waiting for a Secret hear of it as soon as the source sees it (no restart); what the
// source could not read is logged by file, document and field, never a value.
function watchSecrets(source: SecretSource | undefined, log: Logger): KeyedSecretWatch | undefined {
  if (!source?.watch) return undefined;
  const watch = source.watch.bind(source);
  return watchSecretsByKey(watch, { onProblem: (message) => log.error({ component: 'secrets' }, message) });
}

async function untilBrokerAnswers(figures: () => Promise<CapacityFigures>, withinMs: number, clock: Clock): Promise<void> {
  const deadline = clock.now() + withinMs;
  while (clock.now() < deadline) {
    if (await figures().then(() => true, () => false)) return;
    await new Promise<void>((resolve) => clock.setTimeout(resolve, 20));
  }
}

// Written as each record is made, synchronously: a node killed with -9 keeps what it wrote.
function recordOwnership(name: string, file: string, shards: ShardHost): ShardHost['ownership'] {
  const recorder = new OwnershipRecorder();
  const original = recorder.record.bind(recorder);
  recorder.record = (r) => {
    original(r);
    appendFileSync(file, `${JSON.stringify(r)}\n`);
  };
  return recorder.wrap(name, shards.ownership);
}
