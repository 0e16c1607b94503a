import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { FleetSources } from './fleet-metrics.ts';
import { registerFleetMetrics } from './fleet-metrics.ts';
import { errorMessage } from '../../api/index.ts';

/** What the node reports; read on each request, so the answers are never stale. */
export interface NodeHealth extends FleetSources {
  /** The process is alive and its actor system runs. */
  live(): boolean;
  /** Why the process must be restarted though its actors run (its view of the store is stale for good); null when none. */
  restartReason?(): string | null;
  /** Ready to serve: connected to NATS, store replayed, membership joined. Reason when not. */
  ready(): { ready: true } | { ready: false; reason: string };
}

export interface HealthServer {
  readonly url: string;
  readonly registry: Registry;
  close(): Promise<void>;
}

// /healthz, /readyz and /metrics, as a Kubernetes probe and Prometheus expect them. Here the
// metalfleet_* metrics (fleet-metrics.ts); the node adds BMO's metal3_* ones (bmo-metrics.ts).
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
  registerFleetMetrics(registry, health);

  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (options.routes?.(req, res)) return;
    if (req.method !== 'GET') return reply(res, 405, 'method not allowed\n');
    if (path === '/healthz') {
      const restart = health.restartReason?.() ?? null;
      if (restart !== null) return reply(res, 503, `restart needed: ${restart}\n`);
      return health.live() ? reply(res, 200, 'ok\n') : reply(res, 503, 'actor system stopped\n');
    }
    if (path === '/readyz') {
      const r = health.ready();
      return r.ready ? reply(res, 200, 'ok\n') : reply(res, 503, `not ready: ${r.reason}\n`);
    }
    if (path === '/metrics') {
      registry.metrics().then(
        (text) => reply(res, 200, text, registry.contentType),
        (err: unknown) => reply(res, 500, `metrics failed: ${errorMessage(err)}\n`),
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
