import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

/** One backend's calls on this node under its per-backend bound (actors/calls BackendCallFigures). */
export interface BackendCallCounts {
  readonly backend: string;
  /** null: unbounded. */
  readonly limit: number | null;
  readonly inFlight: number;
  readonly waiting: number;
  readonly slotHolderInFlight: number;
  readonly waitedTotal: number;
}

// The node's per-backend bound on calls that hold no slot (issue 30), per backend: a backend is
// named as its capacity pool, so the labels stay as few as the pools.
export function registerBackendCallMetrics(registry: Registry, figures: () => readonly BackendCallCounts[]): void {
  const registers = [registry];
  const gauge = (name: string, help: string, value: (c: BackendCallCounts) => number | null): void => {
    new Gauge({
      name, help, labelNames: ['backend'], registers,
      collect() {
        this.reset();
        for (const c of figures()) {
          const v = value(c);
          if (v !== null) this.set({ backend: c.backend }, v);
        }
      },
    });
  };
  gauge('metalfleet_backend_calls_in_flight', 'Calls without a capacity slot running at a backend from this node (bounded by metalfleet_backend_calls_limit)', (c) => c.inFlight);
  gauge('metalfleet_backend_calls_waiting', 'Calls without a capacity slot waiting for one of the backend\'s places on this node', (c) => c.waiting);
  gauge('metalfleet_backend_calls_limit', 'The per-backend bound on calls without a slot, per node (absent: unbounded)', (c) => c.limit);
  gauge('metalfleet_backend_calls_slot_holders_in_flight', 'Calls of hosts holding a capacity slot running at a backend from this node (beside the bound)', (c) => c.slotHolderInFlight);
  new Counter({
    name: 'metalfleet_backend_calls_waited_total', help: 'Calls without a capacity slot that waited for one of the backend\'s places on this node, since start', labelNames: ['backend'], registers,
    collect() {
      this.reset();
      for (const c of figures()) this.inc({ backend: c.backend }, c.waitedTotal);
    },
  });
}
