import type { Registry } from 'prom-client';
import { Gauge } from 'prom-client';
import type { KubeAdapter } from './adapter.ts';

/** Informer health on the node's /metrics: synced, errors and restarts per resource. */
export function registerKubeMetrics(registry: Registry, adapter: Pick<KubeAdapter, 'informers'>): void {
  const each = (gauge: Gauge<'resource'>, value: (s: ReturnType<KubeAdapter['informers']>[number]) => number): void => {
    gauge.reset();
    for (const s of adapter.informers()) gauge.set({ resource: s.resource }, value(s));
  };
  new Gauge({ name: 'metalfleet_kube_informer_synced', help: 'Whether the informer of a resource has listed it (1) or not yet (0)', labelNames: ['resource'], registers: [registry], collect() { each(this, (s) => (s.synced ? 1 : 0)); } });
  // Gauges of running totals: the actor keeps the counts; a Counter would need increments here.
  new Gauge({ name: 'metalfleet_kube_informer_errors', help: 'Informer failures (stopped watches, failed lists) since start', labelNames: ['resource'], registers: [registry], collect() { each(this, (s) => s.errors); } });
  new Gauge({ name: 'metalfleet_kube_informer_restarts', help: 'Informer restarts after a failure since start', labelNames: ['resource'], registers: [registry], collect() { each(this, (s) => s.restarts); } });
}
