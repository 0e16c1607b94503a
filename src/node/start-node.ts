import { appendFileSync } from 'node:fs';
import { pushToProxy, spawnCapacityProxy, startClusterBroker, CAPACITY_BUCKET } from '../actors/capacity/cluster/index.ts';
import type { ClusterBroker } from '../actors/capacity/cluster/index.ts';
import type { CapacityFigures, CapacityMsg } from '../actors/capacity/index.ts';
import { BackendCalls, DEFAULT_CALL_LIMITS } from '../actors/calls/index.ts';
import type { BackendCallFigures } from '../actors/calls/index.ts';
import type { ActorRef, ActorSystem, Clock, TimerHandle } from '../actors/runtime/index.ts';
import { ask, systemClock } from '../actors/runtime/index.ts';
import type { HealthServer, PoolSlots } from '../adapters/observe/index.ts';
import { BmoMetrics } from '../adapters/observe/index.ts';
import type { KubeAdapter } from '../adapters/kube/index.ts';
import type { SecretSource } from '../adapters/store/nats-secrets.ts';
import { watchSecretsByKey } from '../adapters/store/secret-changes.ts';
import type { KeyedSecretWatch } from '../adapters/store/secret-changes.ts';
import type { CommandServer } from '../cluster/command-server.ts';
import { startCommandServer } from '../cluster/command-server.ts';
import { openRequestLedger } from '../cluster/request-ledger.ts';
import { MEMBER_BUCKET, serveIntrospection } from '../cluster/introspect/index.ts';
import type { Membership, ShardLeases } from '../cluster/index.ts';
import { checkShardCount, OwnershipRecorder, refusalTellingProvisioner, refusalTellingStore, startMembership, startShardLeases } from '../cluster/index.ts';
import { startSingleton } from '../cluster/singleton.ts';
import type { Singleton } from '../cluster/singleton.ts';
import { subjects as clusterSubjects } from '../bus/index.ts';
import { checkPosture, openPosture } from '../security/index.ts';
import { startStoreServer, type StoreServer, type StoreServerOptions } from '../cluster/commands/index.ts';
import { DEFAULT_MAAS_MACHINE_CONFIG } from '../machines/maas-machine/index.ts';
import type { MaasMachineConfig } from '../machines/maas-machine/index.ts';
import type { FenceRefusal, KvBucket, Logger, MaasDriver, Provisioner, ResourceStore, Transport } from '../ports/index.ts';
import { fenceRefusalMetrics } from './fence-metrics.ts';
import type { ClusterTiming, NodeConfig } from './config.ts';
import { clusterTiming } from './config.ts';
import type { HostSnapshot } from '../actors/host/index.ts';
import type { FleetStats } from './fleet-stats.ts';
import { logConnection } from './connection-log.ts';
import type { BusWatch } from './bus-watch.ts';
import { watchBus } from './bus-watch.ts';
import { startNodeHealth } from './health.ts';
import type { NodeHealthServer } from './health.ts';
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

/** Where the node's resources live: one store for every kind it runs (issue 29.1). */
export type NodeStores = KvNodeStores | KubeNodeStores;

/** The KV store (adapters/store kvStore), which the caller opens and closes. */
export interface KvNodeStores {
  /** Every kind the node runs: with `backends.maas`, the MAAS kinds and the objects they read too. */
  readonly store: ResourceStore;
  /** The Secrets the store reads (BMC credentials, user data): hosts waiting for one hear of it. */
  readonly secrets?: SecretSource;
  /** What `apply` and `delete` over NATS write (a node on a shared substrate serves them). */
  readonly requests?: NodeStoreRequests;
  readonly kube?: undefined;
}

/**
 * Hosts, Secrets (and, with `backends.maas`, the MAAS kinds) from Kubernetes, as its one store:
 * started in the node's actor system; the node drives hosts once its informers have listed.
 */
export interface KubeNodeStores {
  readonly kube: KubeAdapter;
  readonly store?: undefined;
  readonly secrets?: undefined;
  readonly requests?: undefined;
}

/** The records apply and delete reach; the node serves them, it does not open them. */
export type NodeStoreRequests = Pick<StoreServerOptions, 'store' | 'objects' | 'isObject' | 'isNotFound'>;

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
  /** Every kind this node runs, as one store. */
  readonly store: ResourceStore;
  readonly health: HealthServer | null;
  /** The MAAS kinds of the shards this node owns; null without a MAAS backend. */
  readonly maas: MaasShards | null;
  readonly introspection: IntrospectionSource;
  isBroker(): boolean;
  /** The cluster-wide capacity figures, from the broker (whichever node holds it). */
  capacity(): Promise<CapacityFigures>;
  /** This node's calls per backend that hold no slot, under its per-backend bound. */
  backendCalls(): BackendCallFigures[];
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
  const clock = runtime.clock ?? systemClock;
  const timing = clusterTiming(config, substrate.shared);
  // Before anything opens: a NATS node that would take anyone's commands does not start.
  checkPosture(substrate.shared, config.security);
  // One bound per backend for the whole node, every kind's actors sharing it; a bad limit stops the start.
  const calls = new BackendCalls(config.calls ?? DEFAULT_CALL_LIMITS, () => clock.now());
  const opened = await openStores(substrate.transport, timing, stores, runtime.log);
  // Health first: /readyz answers "not ready" while informers list and shards are taken.
  const front = await startNodeHealth({
    config, substrate, timing, clock, provisioner: backends.provisioner, ...(backends.maas ? { maasDriver: backends.maas.driver } : {}), calls, kube: stores.kube, gate: runtime.gate,
  });
  runtime.onHealth?.(front.health);
  const busName = substrate.shared ? 'NATS' : 'bus';
  logConnection(substrate.transport, runtime.log, busName, () => clock.now());
  const bus = watchBus(substrate.transport);
  try {
    await runtime.gate?.open;
    // A node of another shard count would map hosts to shards its own way (hosts driven twice or
    // by nobody): refuse before taking any lease, the broker's included. Membership checks again
    // at its start, for a node of another count that joined meanwhile.
    await checkShardCount({ bucket: opened.memberBucket, self: config.name, shardCount: config.shardCount });
    return await assemble({ config, substrate, stores, backends, runtime, clock, timing, opened, front, calls, bus, busName });
  } catch (err) {
    bus.close();
    opened.secretWatch?.close();
    await front.close();
    throw err;
  }
}

/** The buckets a node opens before its health server starts, and the store it runs on. */
interface OpenedStores {
  readonly leaseBucket: KvBucket;
  readonly memberBucket: KvBucket;
  readonly capacityBucket: KvBucket;
  readonly secretWatch: KeyedSecretWatch | undefined;
  /** Every kind the node runs, as one store: Kubernetes', or the KV store it was given. */
  readonly resources: ResourceStore;
}

async function openStores(transport: Transport, timing: ClusterTiming, stores: NodeStores, log: Logger): Promise<OpenedStores> {
  const kvOptions = timing.replicas > 1 ? { replicas: timing.replicas } : {};
  const [leaseBucket, memberBucket, capacityBucket] = await Promise.all([
    transport.kv(LEASE_BUCKET, { ...kvOptions, ttlMs: timing.leaseTtlMs }),
    transport.kv(MEMBER_BUCKET, { ...kvOptions, ttlMs: timing.leaseTtlMs }),
    transport.kv(CAPACITY_BUCKET, kvOptions),
  ]);
  const secretWatch = watchSecrets(stores.kube?.secrets ?? stores.secrets, log);
  const resources: ResourceStore = stores.kube ? stores.kube.store : stores.store;
  return { leaseBucket, memberBucket, capacityBucket, secretWatch, resources };
}

/** Everything startNode has by the time its gate opens. */
interface AssembleContext {
  readonly config: NodeConfig;
  readonly substrate: Substrate;
  readonly stores: NodeStores;
  readonly backends: NodeBackends;
  readonly runtime: NodeRuntime;
  readonly clock: Clock;
  readonly timing: ClusterTiming;
  readonly opened: OpenedStores;
  readonly front: NodeHealthServer;
  readonly calls: BackendCalls;
  /** Whether the bus is up: a stop does not hand off over a dead one. */
  readonly bus: BusWatch;
  /** 'NATS', or 'bus' on a private one, for log lines. */
  readonly busName: string;
}

async function assemble(ctx: AssembleContext): Promise<Node> {
  const { config, substrate, backends, clock, timing, opened: { resources }, front: { health } } = ctx;
  const { transport } = substrate;
  const { log } = ctx.runtime;
  const name = config.name;
  // Refusals of a fenced write or backend call reach the shard lease manager, which gives a shard
  // whose tenure is refused up and takes it again above the refusing epoch (issue 30). It starts
  // last, so what is refused before then (no tenure is held yet) is not its to judge.
  let leases: ShardLeases | null = null;
  const tellRefused = (refusal: FenceRefusal): void => leases?.refused(refusal);
  const { shards, capacity } = await startShardsWithCapacity(ctx, tellRefused);
  const maas: MaasShards | null = shards.maas;
  // BMO's metal3_* metrics, fed by the change stream and the status the host actors report,
  // before any shard is taken.
  if (health) {
    const bmo = new BmoMetrics(health.registry, shards.system.registry);
    shards.stats.follow(bmo);
    shards.changes.subscribe((change) => bmo.changed(change));
  }
  const requests = await startRequests(ctx);

  const singleton = await startSingleton({
    bucket: ctx.opened.leaseBucket, key: BROKER_LEASE_KEY, holder: name, ttlMs: timing.leaseTtlMs, clock, log,
    onElected: capacity.elected,
    onDeposed: capacity.deposed,
  });
  const brokerFigures = (): Promise<CapacityFigures> => {
    const ref = capacity.proxy();
    if (!ref) return Promise.reject(new Error('the capacity proxy is not running'));
    return ask<CapacityMsg, CapacityFigures>(ref, (reply) => ({ type: 'figures', reply }), config.askTimeoutMs);
  };

  // Answering before the first heartbeat: a node the CLI finds in membership can be asked.
  const introspection = nodeSource({
    node: shards, store: resources, isBroker: () => singleton.isLeader(),
    backend: backends.provisioner.name === 'fixture' ? 'fixture' : 'ironic',
    brokerFigures,
    ...(backends.provisioner.apiVersions ? { backendApis: backends.provisioner.apiVersions.bind(backends.provisioner) } : {}),
    fenceWatch: () => leases?.fenceWatch() ?? new Map(),
    backendCalls: () => ctx.calls.figures(),
  }, { clock });
  const introspect = serveIntrospection(transport, introspection, { node: name });
  // Hosts ask for slots as soon as their shard starts: give the broker (here, or on a peer) a
  // moment to answer first, so they are not all sent into retry backoff at once.
  await untilBrokerAnswers(brokerFigures, timing.leaseTtlMs, clock);

  const membership: Membership = await startMembership({
    bucket: ctx.opened.memberBucket, self: name, heartbeatMs: timing.heartbeatMs, deadAfterMs: timing.leaseTtlMs, clock, log,
    // Refuses when a node of another shard count joined since startNode checked (ShardCountMismatch).
    shardCount: config.shardCount,
    // shards: so a client names the shard a host is in by the cluster's count, not its own guess
    // (info.shards as well as the heartbeat's own field: clients of an older version read this one).
    info: { pid: String(process.pid), shards: String(config.shardCount) },
    // Nobody else can join a private bus: take every shard at once.
    ...(substrate.shared ? {} : { settleMs: 0 }),
  }).catch(async (err: unknown) => {
    // No shard lease is taken yet: give back the broker lease and stop what started, then refuse.
    await abandonStart(ctx, { singleton, capacity, requests, introspect, introspection, shards });
    throw err;
  });

  // The broker's pools, on the broker's node only: each pool is reported once in a cluster.
  const pools = (): Promise<readonly PoolSlots[] | null> => (singleton.isLeader() ? brokerFigures().then((f) => f.pools) : Promise.resolve(null));
  ctx.front.running({ shards, membership, maas, store: resources, pools });
  const events = config.ownershipLog ? recordOwnership(name, config.ownershipLog, shards) : shards.ownership;
  const started: ShardLeases = await startShardLeases({
    bucket: ctx.opened.leaseBucket, membership, self: name, shardCount: config.shardCount,
    leaseTtlMs: timing.leaseTtlMs, clock, log, events,
    ...(health ? { onFenceRefused: fenceRefusalMetrics(health.registry) } : {}),
  });
  leases = started;

  let stopping: Promise<void> | null = null;
  return {
    name,
    shards,
    stats: shards.stats,
    system: shards.system,
    snapshot: (key) => shards.snapshot(key),
    store: ctx.opened.resources,
    health,
    maas,
    introspection,
    isBroker: () => singleton.isLeader(),
    capacity: brokerFigures,
    backendCalls: () => ctx.calls.figures(),
    stop({ graceful = true } = {}) {
      stopping ??= stopInOrder(ctx, { membership, leases: started, singleton, capacity, requests, introspect, introspection, shards }, graceful);
      return stopping;
    },
  };
}

/** The capacity broker and this node's proxy, which the shard host spawns in its system. */
interface NodeCapacity {
  broker(): ClusterBroker | null;
  proxy(): ActorRef<CapacityMsg> | null;
  /** The broker lease's singleton tells these; the broker follows them. */
  elected(epoch: number): void;
  deposed(reason: string): void;
}

async function startShardsWithCapacity(ctx: AssembleContext, tellRefused: (refusal: FenceRefusal) => void): Promise<{ shards: ShardHost; capacity: NodeCapacity }> {
  const { config, backends, runtime, clock, timing } = ctx;
  const { transport } = ctx.substrate;
  const { resources, secretWatch, capacityBucket } = ctx.opened;
  const { log } = runtime;
  const kube = ctx.stores.kube;
  const name = config.name;
  let broker: ClusterBroker | null = null;
  const electedHandlers: Array<(epoch: number) => void> = [];
  const deposedHandlers: Array<(reason: string) => void> = [];
  const leadership = { onElected: (fn: (e: number) => void) => void electedHandlers.push(fn), onDeposed: (fn: (r: string) => void) => void deposedHandlers.push(fn) };

  let proxy: ActorRef<CapacityMsg> | null = null;
  const shards = await startShardHost({ ...config, drainTimeoutMs: timing.drainTimeoutMs }, {
    store: refusalTellingStore(resources, tellRefused),
    provisioner: refusalTellingProvisioner(backends.provisioner, tellRefused),
    onFenceRefused: tellRefused,
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
    calls: ctx.calls,
    // The MAAS kinds run in the same shards as the hosts, under the same supervision and drain.
    ...(backends.maas ? {
      maas: {
        driver: backends.maas.driver, config: { ...DEFAULT_MAAS_MACHINE_CONFIG, ...backends.maas.config },
        clusterResyncMs: backends.maas.clusterResyncMs ?? 30_000,
      },
    } : {}),
  });
  const capacity: NodeCapacity = {
    broker: () => broker,
    proxy: () => proxy,
    elected: (epoch) => {
      for (const fn of electedHandlers) fn(epoch);
    },
    deposed: (reason) => {
      for (const fn of deposedHandlers) fn(reason);
    },
  };
  return { shards, capacity };
}

/** Commands, and apply/delete over NATS; close() stops both. */
interface NodeRequests {
  close(): Promise<void>;
}

async function startRequests(ctx: AssembleContext): Promise<NodeRequests> {
  const { config, substrate, stores, timing } = ctx;
  const { transport } = substrate;
  const { resources } = ctx.opened;
  const { log } = ctx.runtime;
  const name = config.name;
  const posture = await openPosture(transport, substrate.shared, config.security, clusterSubjects(), log, timing.replicas);
  const requests = await openRequestLedger(transport, timing.replicas);
  const commands: CommandServer = startCommandServer({ transport, store: resources, shardCount: config.shardCount, log, guard: posture.guard, audit: posture.audit, node: name, requests });
  // apply and delete over NATS come here (only nodes write the stores); a node whose hosts live
  // in Kubernetes leaves them to kubectl.
  const storeRequests: StoreServer | null = stores.requests && substrate.shared ? startStoreServer({
    transport, ...stores.requests, guard: posture.guard, audit: posture.audit, node: name, log,
  }) : null;
  return {
    async close() {
      await commands.close();
      await storeRequests?.close();
      // Refusals counted since the last window closed are written before the connection goes.
      await posture.audit.flush();
    },
  };
}

interface RunningNode {
  readonly membership: Membership;
  readonly leases: ShardLeases;
  readonly singleton: Singleton;
  readonly capacity: NodeCapacity;
  readonly requests: NodeRequests;
  readonly introspect: { close(): Promise<void> };
  readonly introspection: IntrospectionSource;
  readonly shards: ShardHost;
}

// With the bus down, what is left of a stop gets this long to finish its part: a drain or a
// request over a dead bus only waits out its own timeout (seconds each), and a node told to stop
// (Kubernetes: 30 s grace) should be gone in a few.
const BUS_DOWN_SETTLE_MS = 1_000;
// A server paused or wedged with its socket open looks connected, and every step of a stop would
// wait out its own timeout on it (a SIGTERM'd node was killed at its grace period). A healthy
// server answers a ping in milliseconds; this allows for a node's busy event loop besides.
const STOP_PING_MS = 2_000;

async function stopInOrder(ctx: AssembleContext, node: RunningNode, graceful: boolean): Promise<void> {
  const { capacity, requests, introspect, introspection, shards } = node;
  const { bus } = ctx;
  if (bus.up()) await bus.answers(STOP_PING_MS);
  if (!graceful || !(await handOff(ctx, node))) await letGo(node);
  capacity.broker()?.stop();
  const down = !bus.up();
  if (down) {
    // Nothing reaches the server: what is in flight gets a moment, not its timeout.
    await settledWithin([requests.close(), introspect.close()], BUS_DOWN_SETTLE_MS, ctx.clock);
  } else {
    await requests.close();
    await introspect.close();
  }
  introspection.close();
  await shards.stop(down ? Math.min(ctx.timing.drainTimeoutMs, BUS_DOWN_SETTLE_MS) : ctx.timing.drainTimeoutMs);
  bus.close();
  ctx.opened.secretWatch?.close();
  await ctx.stores.kube?.close();
  await ctx.front.close();
}

/**
 * Leave membership, hand every shard off, give up the broker lease: true once done. False when the
 * bus is down, before or during it: nothing can be handed over a dead bus, and each step would
 * only wait out its timeout (18 s in all). The leases then expire and other nodes take over.
 */
async function handOff(ctx: AssembleContext, node: RunningNode): Promise<boolean> {
  const { bus, busName, timing } = ctx;
  const { log } = ctx.runtime;
  const skipped = (how: string): false => {
    const why = bus.status() === 'stalled' ? `did not answer a ping within ${STOP_PING_MS} ms` : 'is unreachable';
    log.warn({ leaseTtlMs: timing.leaseTtlMs }, `hand-off ${how}: ${busName} ${why}, so this node stops its actors and leaves its shard and broker leases to expire; other nodes take them within ${timing.leaseTtlMs} ms`);
    return false;
  };
  if (!bus.up()) return skipped('skipped');
  const { membership, leases, singleton } = node;
  const wait = bus.whenDown();
  const done = (async () => {
    // Leave first so the others stop sending this node shards, then hand off what it holds.
    await membership.leave().catch(() => undefined);
    await leases.stop({ graceful: true });
    await singleton.stop({ release: true });
  })();
  // A server that stalls meanwhile says nothing of it: it is pinged again every STOP_PING_MS.
  let handing = true;
  void pingWhile(() => handing, bus, ctx.clock);
  // A hand-off cut short is left running: what it still waits on fails when the connection closes.
  const outcome = await Promise.race([done.then(() => 'done' as const), wait.down.then(() => 'down' as const)]);
  handing = false;
  wait.cancel();
  return outcome === 'done' || skipped('cut short');
}

// Pings the bus, one ping at a time, until `going` is false or a ping goes unanswered (the bus is then down).
async function pingWhile(going: () => boolean, bus: BusWatch, clock: Clock): Promise<void> {
  while (going() && bus.up()) {
    await new Promise<void>((resolve) => clock.setTimeout(resolve, STOP_PING_MS));
    if (going()) await bus.answers(STOP_PING_MS);
  }
}

/** A start refused before membership: what assemble started so far, stopped; the broker lease released. */
async function abandonStart(ctx: AssembleContext, node: Omit<RunningNode, 'membership' | 'leases'>): Promise<void> {
  await node.singleton.stop({ release: true }).catch(() => undefined);
  node.capacity.broker()?.stop();
  await node.requests.close().catch(() => undefined);
  await node.introspect.close().catch(() => undefined);
  node.introspection.close();
  await node.shards.stop(ctx.timing.drainTimeoutMs).catch(() => undefined);
}

/** Stops membership, the leases and the broker lease at once, giving nothing back. */
async function letGo(node: RunningNode): Promise<void> {
  await node.membership.stop().catch(() => undefined);
  await node.leases.stop({ graceful: false });
  await node.singleton.stop({ release: false });
}

async function settledWithin(work: readonly Promise<unknown>[], ms: number, clock: Clock): Promise<void> {
  let timer: TimerHandle | undefined;
  // Kept alive: the stop is not over until this returns.
  const late = new Promise<void>((resolve) => {
    timer = clock.setTimeout(resolve, ms, true);
  });
  await Promise.race([Promise.allSettled(work), late]);
  if (timer !== undefined) clock.clearTimeout(timer);
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
