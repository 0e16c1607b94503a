// What a node tells the introspection service (src/cluster/introspect). Everything here is read
// from memory the node keeps anyway (fleet stats, the actor registry, owned leases) or asked of
// one actor (inspect), so answering never touches the backend.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { BareMetalHost } from '../api/index.ts';
import { BMH_KIND } from '../api/index.ts';
import { parseBmcAddress, redactRefused } from '../api/bmc/index.ts';
import { HostKind } from '../bus/messages/introspect.ts';
import type {
  ActorRow, HostBackend, HostRow, HostsRequest, InfoReply, InspectedHost, PoolRow, SpecSummary,
} from '../bus/messages/introspect.ts';
import type { MaasMachineState } from '../machines/maas-machine/index.ts';
import { MAAS_MACHINE_KIND_DEFINITION } from '../machines/maas-machine/kind.ts';
import type { MachineView, ViewCondition } from '../machines/logic.ts';
import type { BackendApiVersion, ResourceKind, ResourceStore } from '../ports/index.ts';
import type { BackendCallFigures } from '../actors/calls/index.ts';
import type { CapacityFigures } from '../actors/capacity/index.ts';
import type { HostSnapshot } from '../actors/host/index.ts';
import type { ActorSystem, Clock } from '../actors/runtime/index.ts';
import { systemClock } from '../actors/runtime/index.ts';
import { shardOf } from '../api/index.ts';
import type { FleetStats, MachineSummary } from './fleet-stats.ts';
import { maasClusterRows } from './maas-cluster-rows.ts';
import { storedClusterRows } from './stored-cluster-rows.ts';
import { companionsSummary } from './companions-summary.ts';
import { sinceMs, storedHostRows } from './stored-host-rows.ts';
import { maasSpecSummary, storedMaasInspect } from './stored-maas-inspect.ts';
import { unreadableInspect, unreadableRow } from './stored-problem.ts';
import type { ShardHost } from './shard-host.ts';
import type { CapacityView, InspectOutcome, IntrospectionSource } from '../cluster/introspect/index.ts';
import type { StaleFenceState } from '../cluster/index.ts';
import { METALFLEET_VERSION } from '../cluster/introspect/index.ts';

export type { CapacityView, InspectOutcome, IntrospectionSource };

// --- shared pieces ------------------------------------------------------------------------------

export interface SourceOptions {
  /** Reported by `info`; default the package version. */
  readonly version?: string;
  /** The clock the node's actors use (times in snapshots are on it); default the system clock. */
  readonly clock?: Clock;
  /** How often the event-loop delay p99 is taken and reset; default 5 s. */
  readonly lagIntervalMs?: number;
  /**
   * How long `clusters` waits for each MaasCluster actor; default 1 s, under the CLI's 2 s, so one
   * actor busy with a slow MAAS call is a row saying so rather than no answer from the node.
   */
  readonly clusterAskMs?: number;
  /** How long `inspect` waits for a MaasMachine's actor; default 1 s, under the CLI's 2 s. */
  readonly inspectAskMs?: number;
}


/** p99 event-loop delay over the last completed interval (the running one until one completes). */
function lagSampler(intervalMs: number): { p99(): number; close(): void } {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let last: number | null = null;
  const timer = setInterval(() => {
    last = histogram.count > 0 ? histogram.percentile(99) / 1e6 : 0;
    histogram.reset();
  }, intervalMs);
  timer.unref();
  return {
    p99: () => last ?? (histogram.count > 0 ? histogram.percentile(99) / 1e6 : 0),
    close: () => {
      clearInterval(timer);
      histogram.disable();
    },
  };
}

function actorRows(system: ActorSystem, prefix: string | undefined): ActorRow[] {
  return system.registry.list({ summary: false, ...(prefix !== undefined ? { prefix } : {}) })
    .map((a) => ({
      path: a.path, kind: a.kind, parent: a.parent, mailboxDepth: a.mailboxDepth, highWater: a.highWater,
      processed: a.processed, restarts: a.restarts, lastError: a.lastError, busy: a.busy,
    }))
    .sort((a, b) => a.path.localeCompare(b.path));
}

/** The row's conditions, when the request asked for them. */
function briefConditions(wanted: boolean, list: readonly ViewCondition[] | undefined): Pick<HostRow, 'conditions'> {
  if (!wanted || !list || list.length === 0) return {};
  return { conditions: list.map((c) => ({ type: c.type, status: c.status, ...(c.reason ? { reason: c.reason } : {}) })) };
}

/**
 * A row of `hosts` (and of the page, which samples the same verb) from a kind's view: the one
 * place a view becomes a row, so every kind's state, power, status (paused, waiting, delayed,
 * detached, ...) and error show alike.
 */
export function viewRow(kind: HostRow['kind'], key: string, view: MachineView, where: { backend: HostBackend; shard: number; stateSinceMs: number; withConditions: boolean }): HostRow {
  return {
    key, kind, backend: where.backend, state: view.state, poweredOn: view.power === 'on',
    operationalStatus: view.operationalStatus, errorType: view.errorType ?? (view.error ? 'error' : ''),
    ...(view.error ? { errorMessage: view.error } : {}),
    shard: where.shard,
    stateSinceMs: where.stateSinceMs,
    ...briefConditions(where.withConditions, view.conditions),
  };
}

/** The kinds `hosts` lists (MaasClusters have the `clusters` verb), each with its backend. */
function hostKindsOf(stats: FleetStats, backend: HostBackend): Array<[HostKind, HostBackend, ReadonlyMap<string, MachineSummary>]> {
  const out: Array<[HostKind, HostBackend, ReadonlyMap<string, MachineSummary>]> = [];
  for (const [kind, figures] of stats.kinds) {
    const parsed = HostKind.safeParse(kind);
    if (parsed.success) out.push([parsed.data, parsed.data === BMH_KIND ? backend : 'maas', figures.objects]);
  }
  return out;
}

// Every kind's rows from what the change stream last reported of each object: its view, since
// when in its state, its shard. Nothing is asked of an actor.
function objectRows(node: { stats: FleetStats; shardCount: number; owns(key: string): boolean }, backend: HostBackend, now: number, store: ResourceStore | undefined, withConditions: boolean): HostRow[] {
  const rows: HostRow[] = [];
  for (const [kind, kindBackend, objects] of hostKindsOf(node.stats, backend)) {
    for (const [key, summary] of objects) {
      const row = viewRow(kind, key, summary, { backend: kindBackend, shard: summary.shard, stateSinceMs: Math.max(0, now - summary.since), withConditions });
      // A record the store cannot read (a malformed KV value) is the host's error too.
      const problem = store?.recordProblem?.(kind as ResourceKind, key);
      const errorMessage = [problem, summary.error].filter(Boolean).join('; ');
      rows.push({ ...row, ...(errorMessage ? { errorMessage } : {}) });
    }
  }
  // A host of this node's shards whose only record does not parse has no actor: it is listed
  // with the store's reason, so it is not simply missing.
  for (const [key, problem] of store?.recordProblems?.(BMH_KIND) ?? []) {
    if (node.stats.hosts.has(key) || !node.owns(key)) continue;
    rows.push(unreadableRow(key, 'BareMetalHost', backend, shardOf(key, node.shardCount), problem));
  }
  return rows;
}

function filterHosts(rows: HostRow[], filter: HostsRequest): HostRow[] {
  return rows
    .filter((r) => (filter.state === undefined || r.state === filter.state)
      && (filter.backend === undefined || r.backend === filter.backend)
      && (!filter.errors || r.errorType !== ''))
    .sort((a, b) => a.key.localeCompare(b.key));
}

/** `ipmi://user:pw@10.0.0.1` → `ipmi://10.0.0.1`: a BMC address may carry credentials in its userinfo. */
export function stripUserinfo(address: string): string {
  const stripped = withoutAuthorityUserinfo(address);
  // A password holding "/", "?" or "#" ends Go's authority early ("admin:pw/rest@host"), so no
  // userinfo is found; such an address is refused, and is shown as its refusal shows it.
  return stripped.includes('@') && !parseBmcAddress(address).ok ? redactRefused(address).shown : stripped;
}

function withoutAuthorityUserinfo(address: string): string {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/.exec(address);
  if (scheme) {
    const [, prefix = '', authority = '', rest = ''] = scheme;
    const at = authority.lastIndexOf('@');
    return at < 0 ? address : `${prefix}${authority.slice(at + 1)}${rest}`;
  }
  // No scheme ("host:623", or "user:pw@host"): drop whatever precedes an '@' in the first part.
  const slash = address.search(/[/?#]/);
  const head = slash < 0 ? address : address.slice(0, slash);
  const at = head.lastIndexOf('@');
  return at < 0 ? address : address.slice(at + 1);
}

function bmhSpec(host: BareMetalHost | undefined): SpecSummary {
  if (!host) return {};
  const s = host.spec;
  const out: SpecSummary = { online: s.online, bootMode: s.bootMode, automatedCleaningMode: s.automatedCleaningMode };
  if (s.bmc) {
    out.bmcAddress = stripUserinfo(s.bmc.address);
    out.credentialsName = s.bmc.credentialsName;
  }
  if (s.bootMACAddress) out.bootMACAddress = s.bootMACAddress;
  if (s.image) {
    out.imageUrl = s.image.url;
    if (s.image.format) out.imageFormat = s.image.format;
  }
  if (s.inspectionMode) out.inspectionMode = s.inspectionMode;
  if (s.externallyProvisioned !== undefined) out.externallyProvisioned = s.externallyProvisioned;
  if (s.consumerRef) out.consumerRef = `${s.consumerRef.namespace ?? ''}/${s.consumerRef.name ?? ''}`;
  if (s.userData) out.userDataName = s.userData.name;
  if (s.networkData) out.networkDataName = s.networkData.name;
  if (s.metaData) out.metaDataName = s.metaData.name;
  return out;
}

function slotRow(slot: HostSnapshot['slot'] | MaasMachineState['slot'], now: number): InspectedHost['slot'] {
  switch (slot.phase) {
    case 'none': return { phase: 'none' };
    case 'waiting': return { phase: 'waiting', op: slot.op, waitingMs: Math.max(0, now - slot.since) };
    case 'held': return { phase: 'held', op: slot.op };
  }
}

// "ironic:127.0.0.1:6385 1.82" per endpoint: which microversion the node speaks to its Ironic(s).
function apiLine(apis: readonly BackendApiVersion[]): string {
  return apis.map((a) => `${a.backend} ${a.version ?? '(not negotiated yet)'}`).join(', ');
}

function inspectedBmh(snapshot: HostSnapshot, host: BareMetalHost | undefined, backend: HostBackend, shard: number, epoch: number, now: number, apis: readonly BackendApiVersion[]): InspectedHost {
  const id = snapshot.status.provisioning.ID;
  const record = { ...(id ? { provisioningId: id } : {}), ...(apis.length > 0 ? { api: apiLine(apis) } : {}) };
  return {
    key: snapshot.key,
    kind: 'BareMetalHost',
    backend,
    state: snapshot.state,
    stateSinceMs: Math.max(0, now - snapshot.stateSince),
    spec: bmhSpec(host),
    status: snapshot.status as unknown as Record<string, unknown>,
    recent: snapshot.recent.map((t) => ({ at: t.at, severity: t.severity, reason: t.reason, message: boundedMessage(t.message) })),
    inFlight: snapshot.inFlight,
    slot: slotRow(snapshot.slot, now),
    ...retryFields(snapshot.retryAt, now),
    shard,
    epoch,
    ...(Object.keys(record).length > 0 ? { backendRecord: record } : {}),
  };
}

// A BareMetalHost as the store last had it: what an actor alone knows (in flight, slot, retry,
// transitions) is left empty, and the reply says it is stored.
function storedInspect(key: string, host: BareMetalHost, backend: HostBackend, shard: number, now: number): InspectedHost {
  const status = host.status;
  return {
    key, kind: 'BareMetalHost', backend,
    state: status?.provisioning.state ?? '',
    stateSinceMs: sinceMs(status?.lastUpdated, now),
    spec: bmhSpec(host),
    status: (status ?? {}) as unknown as Record<string, unknown>,
    recent: [], inFlight: null, slot: { phase: 'none' }, retryAt: null, nextAttemptInMs: null,
    shard, epoch: 0, stored: true,
  };
}

/** The most characters of one transition's message the inspect reply carries. */
const TRANSITION_MESSAGE_MAX = 2_000;

/**
 * A transition's message as the inspect reply carries it. A backend's reason can be tens of KB
 * (Ironic's last_error with the agent's traceback), and a host that keeps failing holds 16 events
 * with it: whole, they took the reply past NATS's 1 MiB, so inspect and the host page failed for
 * exactly the host one wants to look at. The error itself goes whole in status.errorMessage.
 */
function boundedMessage(message: string): string {
  if (message.length <= TRANSITION_MESSAGE_MAX) return message;
  let head = message.slice(0, TRANSITION_MESSAGE_MAX);
  // Never half a surrogate pair at the cut.
  const last = head.charCodeAt(head.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) head = head.slice(0, -1);
  return `${head}… (${message.length - head.length} more characters; the whole text is in status.errorMessage or the host's events)`;
}

/**
 * A machine's next retry as the inspect reply carries it. A machine that waits for its object to
 * change keeps retryAt at Infinity (no timer), which is no time at all on the wire: it is said.
 */
function retryFields(retryAt: number | null, now: number): Pick<InspectedHost, 'retryAt' | 'nextAttemptInMs' | 'retryWaitsForChange'> {
  if (retryAt === null) return { retryAt: null, nextAttemptInMs: null };
  if (!Number.isFinite(retryAt)) return { retryAt: null, nextAttemptInMs: null, retryWaitsForChange: true };
  return { retryAt, nextAttemptInMs: Math.max(0, retryAt - now) };
}

function poolsOfFigures(figures: CapacityFigures): PoolRow[] {
  return figures.pools.map((p) => ({
    pool: p.pool,
    limit: Number.isFinite(p.limit) && p.limit > 0 ? p.limit : null,
    inUse: p.holders.map((h) => ({ holder: h.holder, operation: h.operation, sinceMs: h.sinceMs, exempt: h.exempt })),
    waiting: p.queue.map((w) => ({ holder: w.holder, operation: w.operation, waitingMs: w.waitingMs })),
    longestWaitMs: p.longestWaitMs,
    inUseCount: p.inUse + p.exempt,
    boundedCount: p.inUse,
    exemptCount: p.exempt,
    waitingCount: p.waiting,
    stallSeconds: p.stallSeconds,
  }));
}

function memory(): InfoReply['memory'] {
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed };
}

// --- the node ---------------------------------------------------------------------------------

/** What the one node tells its introspection service. */
export interface NodeSourceParts {
  readonly node: ShardHost;
  readonly store: ResourceStore;
  /** The backend this node drives its BareMetalHosts with. */
  readonly backend: HostBackend;
  /** True while this node holds the capacity broker lease. */
  readonly isBroker: () => boolean;
  /** The cluster broker's figures (asked over the bus); called only while isBroker(). */
  readonly brokerFigures: () => Promise<CapacityFigures>;
  /** The API versions agreed with the backend endpoints (the provisioner's apiVersions). */
  readonly backendApis?: () => readonly BackendApiVersion[];
  /** The shard lease manager's stale-fence watch (issue 30), per shard. */
  readonly fenceWatch?: () => ReadonlyMap<number, StaleFenceState>;
  /** This node's calls per backend under its per-backend bound (actors/calls). */
  readonly backendCalls?: () => readonly BackendCallFigures[];
}

export function nodeSource(parts: NodeSourceParts, options: SourceOptions = {}): IntrospectionSource {
  const { node, backend } = parts;
  const clock = options.clock ?? systemClock;
  const startedAt = Date.now();
  const lag = lagSampler(options.lagIntervalMs ?? 5_000);
  const hostCount = (): number => hostKindsOf(node.stats, backend).reduce((n, [, , objects]) => n + objects.size, 0);
  const epochOf = (shard: number): number => node.owned().get(shard)?.epoch ?? 0;
  return {
    async info() {
      return {
        version: options.version ?? METALFLEET_VERSION, startedAt, uptimeMs: Date.now() - startedAt, pid: process.pid,
        hosts: hostCount(), shards: node.owned().size, memory: memory(), eventLoopLagMs: lag.p99(), broker: parts.isBroker(),
        ...(parts.backendApis ? { backendApis: [...parts.backendApis()] } : {}),
      };
    },
    async hosts(filter) {
      const now = clock.now();
      if (filter.storedShards) {
        const scope = { backend, maas: node.maas !== null, shardCount: node.shardCount };
        return filterHosts(await storedHostRows(parts.store, scope, filter.storedShards, now), filter);
      }
      const withConditions = filter.conditions === true;
      return filterHosts(objectRows(node, backend, now, parts.store, withConditions), filter);
    },
    async actors(filter) {
      return actorRows(node.system, filter.prefix);
    },
    async shards() {
      const now = clock.now();
      // A MaasMachine counts in the shard of its Cluster API cluster, where its actor runs.
      const counts = new Map<number, number>();
      for (const [, , objects] of hostKindsOf(node.stats, backend)) {
        for (const { shard } of objects.values()) counts.set(shard, (counts.get(shard) ?? 0) + 1);
      }
      const fences = parts.fenceWatch?.() ?? new Map<number, StaleFenceState>();
      return [...node.owned()].map(([shard, fence]) => {
        const watch = fences.get(shard);
        const last = watch?.last;
        return {
          shard, epoch: fence.epoch, hosts: counts.get(shard) ?? 0,
          leaseAgeMs: Math.max(0, now - (node.acquiredAt(shard) ?? now)),
          ...(watch ? { fenceRefused: watch.refused, fenceRetakes: watch.retakes } : {}),
          ...(last ? { lastRetake: { epoch: last.epoch, lostTo: last.lostTo, by: last.by, agoMs: Math.max(0, now - last.at) } } : {}),
        };
      }).sort((a, b) => a.shard - b.shard);
    },
    async capacity() {
      // Every node bounds its own calls: each answers with them, the broker's node with its pools too.
      const calls = parts.backendCalls ? { calls: [...parts.backendCalls()] } : {};
      if (!parts.isBroker()) return { broker: false, pools: [], ...calls };
      return { broker: true, pools: poolsOfFigures(await parts.brokerFigures()), ...calls };
    },
    async inspect(key, kind = 'BareMetalHost', stored = false) {
      const now = clock.now();
      if (stored && kind === 'MaasMachine') {
        // A node without MAAS keeps no MaasMachines: its store is not asked.
        const machine = node.maas !== null ? await parts.store.get('MaasMachine', key) : undefined;
        if (!machine) return { ok: false, kind: 'notFound', message: `no MaasMachine ${key} in this node's store` };
        return { ok: true, host: storedMaasInspect(key, machine, (k) => shardOf(k, node.shardCount), now) };
      }
      if (stored) {
        const host = await parts.store.get('BareMetalHost', key);
        const problem = host ? undefined : parts.store.recordProblem?.('BareMetalHost', key);
        if (problem) return { ok: true, host: unreadableInspect(key, 'BareMetalHost', backend, shardOf(key, node.shardCount), problem, now) };
        if (!host) return { ok: false, kind: 'notFound', message: `no BareMetalHost ${key} in this node's store` };
        const inspected = storedInspect(key, host, backend, shardOf(key, node.shardCount), now);
        inspected.companions = await companionsSummary(parts.store, key);
        return { ok: true, host: inspected };
      }
      // Only the kind asked for is looked up: a MaasMachine never shadows a BareMetalHost of its name.
      if (kind === 'MaasMachine') {
        // It lives in its cluster's shard, which this node cannot tell without the object: every
        // node that does not drive it says notFound, and the client takes the one that does.
        const summary = node.stats.of(kind).objects.get(key);
        const state = summary ? await node.maas?.machineState(key, options.inspectAskMs ?? 1_000) : null;
        if (!summary || !state) return { ok: false, kind: 'notFound', message: `no MaasMachine ${key}: this node drives no such object` };
        return { ok: true, host: inspectedMaas(key, state, summary.since, clock.now(), summary.shard, epochOf(summary.shard)) };
      }
      const shard = shardOf(key, node.shardCount);
      if (!node.owns(key)) return { ok: false, kind: 'notOwner', message: `shard ${shard} of ${key} is not owned by this node` };
      const [snapshot, host] = await Promise.all([node.snapshot(key), parts.store.get('BareMetalHost', key)]);
      if (!snapshot) return { ok: false, kind: 'notFound', message: `no BareMetalHost ${key}: the owner of shard ${shard} drives no such object` };
      const inspected = inspectedBmh(snapshot, host, backend, shard, epochOf(shard), now, parts.backendApis?.() ?? []);
      inspected.companions = await companionsSummary(parts.store, key);
      // A record the store cannot read (a malformed KV value) shows as the newest warning.
      const problem = parts.store.recordProblem?.('BareMetalHost', key);
      if (problem) inspected.recent.push({ at: now, severity: 'Warning', reason: 'StoreRecordInvalid', message: problem });
      return { ok: true, host: inspected };
    },
    async clusters(storedShards) {
      if (storedShards) return node.maas !== null ? storedClusterRows(parts.store, node.shardCount, storedShards) : [];
      return maasClusterRows(node.system, { shardCount: node.shardCount, now: () => clock.now(), timeoutMs: options.clusterAskMs ?? 1_000 });
    },
    close: () => lag.close(),
  };
}

function inspectedMaas(key: string, m: MaasMachineState, since: number, now: number, shard: number, epoch: number): InspectedHost {
  return {
    key,
    kind: 'MaasMachine',
    backend: 'maas',
    state: MAAS_MACHINE_KIND_DEFINITION.logic.view(m).state,
    stateSinceMs: Math.max(0, now - since),
    spec: maasSpecSummary(m.object.spec),
    status: { ...m.status } as Record<string, unknown>,
    recent: [],
    inFlight: m.inFlight?.op ?? null,
    slot: slotRow(m.slot, now),
    ...retryFields(m.retryAt, now),
    shard,
    epoch,
    ...(m.view ? { backendRecord: { ...m.view } } : {}),
  };
}
