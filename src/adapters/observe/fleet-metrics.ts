import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { BackendRequestCount } from '../../ports/index.ts';

/** One capacity pool as the broker sees it. */
export interface PoolSlots {
  readonly pool: string;
  /** Slots held by non-exempt hosts, the ones the pool's limit bounds. */
  readonly inUse: number;
  readonly waiting: number;
  /** Seconds the broker saw a free slot beside a waiting request and no grant (see StallWatch). */
  readonly stallSeconds: number;
}

/** What the metalfleet_* metrics read; each is asked on every scrape. */
export interface FleetSources {
  hostsByState(): ReadonlyMap<string, number>;
  /** MaasMachines driven by this node, by MAAS state (Deploying, Deployed, ...). */
  maasMachinesByState?(): ReadonlyMap<string, number>;
  /** Writes the stores refused because a newer owner of the shard had written (StaleFence). */
  staleFenceRefusals?(): number;
  shardsOwned(): number;
  /** Messages queued in this node's actor mailboxes, by actor kind (host, shard, capacity-proxy, ...). */
  mailboxDepth(): ReadonlyMap<string, number>;
  /** The pools of the cluster's capacity broker; null on every node but the broker's, so a pool is reported once. */
  capacityPools?(): Promise<readonly PoolSlots[] | null>;
  backendRequests?(): readonly BackendRequestCount[];
}

// metalfleet's own metrics, beside BMO's. Labels stay bounded: per state, actor kind, pool and
// route, never per host or per actor.
export function registerFleetMetrics(registry: Registry, sources: FleetSources): void {
  const registers = [registry];
  const byLabel = (gauge: Gauge<string>, label: string, counts: Iterable<[string, number]>): void => {
    gauge.reset();
    for (const [value, n] of counts) gauge.set({ [label]: value }, n);
  };
  new Gauge({
    name: 'metalfleet_hosts', help: 'BareMetalHosts driven by this node, by provisioning state', labelNames: ['state'], registers,
    collect() {
      byLabel(this, 'state', [...sources.hostsByState()].filter(([, n]) => n > 0));
    },
  });
  new Gauge({
    name: 'metalfleet_maas_machines', help: 'MaasMachines driven by this node, by MAAS state', labelNames: ['state'], registers,
    collect() {
      byLabel(this, 'state', [...(sources.maasMachinesByState?.() ?? [])].filter(([, n]) => n > 0));
    },
  });
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
      this.reset();
      for (const p of await pools()) this.inc({ pool: p.pool }, p.stallSeconds);
    },
  });
  new Counter({
    name: 'metalfleet_backend_requests_total', help: 'Requests sent to a backend, by route and answer (retries included)', labelNames: ['backend', 'route', 'status'], registers,
    collect() {
      this.reset();
      for (const r of sources.backendRequests?.() ?? []) this.inc({ backend: r.backend, route: r.route, status: r.status }, r.count);
    },
  });
}
