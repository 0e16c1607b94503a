import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/** What the node reports; read on each request, so the answers are never stale. */
export interface NodeHealth {
  /** The process is alive and its actor system runs. */
  live(): boolean;
  /** Ready to serve: connected to NATS, store replayed, membership joined. Reason when not. */
  ready(): { ready: true } | { ready: false; reason: string };
  hostsByState(): ReadonlyMap<string, number>;
  /** MaasMachines driven by this node, by MAAS state (Deploying, Deployed, ...). */
  maasMachinesByState?(): ReadonlyMap<string, number>;
  /** Writes the stores refused because a newer owner of the shard had written (StaleFence). */
  staleFenceRefusals?(): number;
  shardsOwned(): number;
  mailboxDepth(): number;
  slots(): { inUse: number; waiting: number } | null;
}

export interface HealthServer {
  readonly url: string;
  readonly registry: Registry;
  close(): Promise<void>;
}

// /healthz, /readyz and /metrics, as a Kubernetes probe and Prometheus expect them. Metric names
// follow BMO's where they overlap (metal3_host_*), the rest are metalfleet_*.
export async function startHealthServer(health: NodeHealth, options: {
  host?: string;
  port: number;
  node: string;
  /** More pages on the same port and address (the dashboard, src/ui): true when it answered the request. */
  routes?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean;
}): Promise<HealthServer> {
  const registry = new Registry();
  registry.setDefaultLabels({ node: options.node });
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'metal3_host_provisioning_state',
    help: 'Hosts driven by this node, by provisioning state',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [state, n] of health.hostsByState()) if (n > 0) this.set({ state }, n);
    },
  });
  new Gauge({
    name: 'metalfleet_maas_machines',
    help: 'MaasMachines driven by this node, by MAAS state',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [state, n] of health.maasMachinesByState?.() ?? []) if (n > 0) this.set({ state }, n);
    },
  });
  new Gauge({
    name: 'metalfleet_stale_fence_refusals',
    help: 'Writes refused since start because a newer owner of the shard had written (StaleFence)',
    registers: [registry],
    collect() {
      this.set(health.staleFenceRefusals?.() ?? 0);
    },
  });
  new Gauge({ name: 'metalfleet_shards_owned', help: 'Shard leases held by this node', registers: [registry], collect() { this.set(health.shardsOwned()); } });
  new Gauge({ name: 'metalfleet_mailbox_depth', help: 'Messages queued in all actor mailboxes of this node', registers: [registry], collect() { this.set(health.mailboxDepth()); } });
  new Gauge({
    name: 'metalfleet_capacity_slots',
    help: 'Capacity slots in use and hosts waiting (the broker node only)',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      const slots = health.slots();
      if (!slots) return;
      this.set({ kind: 'inUse' }, slots.inUse);
      this.set({ kind: 'waiting' }, slots.waiting);
    },
  });

  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (options.routes?.(req, res)) return;
    if (req.method !== 'GET') return reply(res, 405, 'method not allowed\n');
    if (path === '/healthz') return health.live() ? reply(res, 200, 'ok\n') : reply(res, 503, 'actor system stopped\n');
    if (path === '/readyz') {
      const r = health.ready();
      return r.ready ? reply(res, 200, 'ok\n') : reply(res, 503, `not ready: ${r.reason}\n`);
    }
    if (path === '/metrics') {
      registry.metrics().then(
        (text) => reply(res, 200, text, registry.contentType),
        (err: unknown) => reply(res, 500, `metrics failed: ${err instanceof Error ? err.message : String(err)}\n`),
      );
      return;
    }
    reply(res, 404, `not found: try /healthz, /readyz or /metrics${options.routes ? ', or / for the dashboard' : ''}\n`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    registry,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function reply(res: http.ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}
