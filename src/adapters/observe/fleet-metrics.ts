import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { BackendRequestCount } from '../../ports/index.ts';
import { WITHHELD } from '../http/index.ts';

/** One capacity pool as the broker sees it. */
export interface PoolSlots {
  readonly pool: string;
  /** Slots held by non-exempt hosts, the ones the pool's limit bounds. */
  readonly inUse: number;
  readonly waiting: number;
  /** Seconds the broker saw a free slot beside a waiting request and no grant (see StallWatch). */
  readonly stallSeconds: number;
}

/** One kind's objects on this node, as the node's change stream left them. */
export interface KindCounts {
  readonly byState: ReadonlyMap<string, number>;
  /** State changes since start: from state, to state, how many. */
  readonly moves: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

/** What the metalfleet_* metrics read; each is asked on every scrape. */
export interface FleetSources {
  /** Every kind driven by this node (BareMetalHost, MaasMachine, MaasCluster, ...), by kind. */
  machines(): ReadonlyMap<string, KindCounts>;
  /** Writes the stores refused because a newer owner of the shard had written (StaleFence). */
  staleFenceRefusals?(): number;
  shardsOwned(): number;
  /** Messages queued in this node's actor mailboxes, by actor kind (host, shard, capacity-proxy, ...). */
  mailboxDepth(): ReadonlyMap<string, number>;
  /** The pools of the cluster's capacity broker; null on every node but the broker's, so a pool is reported once. */
  capacityPools?(): Promise<readonly PoolSlots[] | null>;
  backendRequests?(): readonly BackendRequestCount[];
}

// Every kind alike, from the change stream: objects by kind and state, and state changes by kind,
// from and to. The two per-kind gauges of earlier releases stay, read from the same figures.
function registerKindMetrics(registers: Registry[], sources: FleetSources): void {
  const stateCounts = (kind: string): Array<[string, number]> => [...(sources.machines().get(kind)?.byState ?? [])].filter(([, n]) => n > 0);
  new Gauge({
    name: 'metalfleet_machines', help: 'Objects driven by this node, by kind and by the state its view shows', labelNames: ['kind', 'state'], registers,
    collect() {
      this.reset();
      for (const [kind, counts] of sources.machines()) for (const [state, n] of counts.byState) if (n > 0) this.set({ kind, state }, n);
    },
  });
  new Counter({
    name: 'metalfleet_machine_transitions_total', help: 'State changes of the objects driven by this node since it started, by kind, from and to', labelNames: ['kind', 'from', 'to'], registers,
    collect() {
      this.reset();
      for (const [kind, counts] of sources.machines()) {
        for (const [from, row] of counts.moves) for (const [to, n] of row) this.inc({ kind, from, to }, n);
      }
    },
  });
  new Gauge({
    name: 'metalfleet_hosts', help: 'BareMetalHosts driven by this node, by provisioning state', labelNames: ['state'], registers,
    collect() {
      this.reset();
      for (const [state, n] of stateCounts('BareMetalHost')) this.set({ state }, n);
    },
  });
  new Gauge({
    name: 'metalfleet_maas_machines', help: 'MaasMachines driven by this node, by MAAS state', labelNames: ['state'], registers,
    collect() {
      this.reset();
      for (const [state, n] of stateCounts('MaasMachine')) this.set({ state }, n);
    },
  });
}

// metalfleet's own metrics, beside BMO's. Labels stay bounded: per state, actor kind, pool and
// route, never per host or per actor.
export function registerFleetMetrics(registry: Registry, sources: FleetSources): void {
  const registers = [registry];
  const byLabel = (gauge: Gauge<string>, label: string, counts: Iterable<[string, number]>): void => {
    gauge.reset();
    for (const [value, n] of counts) gauge.set({ [label]: value }, n);
  };
  registerKindMetrics(registers, sources);
  new Gauge({
    name: 'metalfleet_stale_fence_refusals', help: 'Writes refused since start because a newer owner of the shard had written (StaleFence)', registers,
    collect() {
      this.set(sources.staleFenceRefusals?.() ?? 0);
    },
  });
  new Gauge({
    name: 'metalfleet_shards_owned', help: 'Shard leases held by this node', registers,
    collect() {
      this.set(sources.shardsOwned());
    },
  });
  new Gauge({
    name: 'metalfleet_mailbox_depth', help: 'Messages queued in the actor mailboxes of this node, by actor kind', labelNames: ['kind'], registers,
    collect() {
      byLabel(this, 'kind', sources.mailboxDepth());
    },
  });
  // One question to the broker per scrape answers both pool gauges (their collects run together).
  let asking: Promise<readonly PoolSlots[]> | null = null;
  const pools = (): Promise<readonly PoolSlots[]> => (asking ??= (sources.capacityPools?.() ?? Promise.resolve(null))
    // A broker that does not answer leaves the pools out rather than failing the whole scrape.
    .then((p) => p ?? [], () => [])
    .finally(() => {
      asking = null;
    }));
  new Gauge({
    name: 'metalfleet_capacity_slots_in_use', help: 'Capacity slots held by non-exempt hosts, per pool (the broker node only)', labelNames: ['pool'], registers,
    async collect() {
      byLabel(this, 'pool', (await pools()).map((p) => [p.pool, p.inUse]));
    },
  });
  new Gauge({
    name: 'metalfleet_capacity_waiting', help: 'Hosts waiting for a capacity slot, per pool (the broker node only)', labelNames: ['pool'], registers,
    async collect() {
      byLabel(this, 'pool', (await pools()).map((p) => [p.pool, p.waiting]));
    },
  });
  new Counter({
    name: 'metalfleet_capacity_stall_seconds_total',
    help: 'Seconds a pool had a free slot beside a waiting request and granted nothing, per pool (the broker node only; 0 is the target)',
    labelNames: ['pool'], registers,
    async collect() {
      // Reset only once the answer is in: a reset before the wait let overlapping scrapes (an HA
      // pair of Prometheus servers) each add the total to the other's, the counter read double.
      const answer = await pools();
      this.reset();
      for (const p of answer) this.inc({ pool: p.pool }, p.stallSeconds);
    },
  });
  new Counter({
    name: 'metalfleet_backend_requests_total', help: 'Requests sent to a backend, by route and answer (retries included)', labelNames: ['backend', 'route', 'status'], registers,
    collect() {
      this.reset();
      // A withheld request was never sent: it has its own counter.
      for (const r of sources.backendRequests?.() ?? []) if (r.status !== WITHHELD) this.inc({ backend: r.backend, route: r.route, status: r.status }, r.count);
    },
  });
  new Counter({
    name: 'metalfleet_backend_requests_withheld_total',
    help: 'Requests to a backend withheld as they got their connection: their shard lease was no longer safely held (they waited in the connection pool past its deadline, a starved node); nothing was sent',
    labelNames: ['backend'], registers,
    collect() {
      this.reset();
      const byBackend = new Map<string, number>();
      // Every backend that reported requests has a series, 0 until one is withheld: a rate alert needs it.
      for (const r of sources.backendRequests?.() ?? []) byBackend.set(r.backend, (byBackend.get(r.backend) ?? 0) + (r.status === WITHHELD ? r.count : 0));
      for (const [backend, n] of byBackend) this.inc({ backend }, n);
    },
  });
}
