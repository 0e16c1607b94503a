import { Counter } from 'prom-client';
import type { Registry } from 'prom-client';
import type { ShardFenceRefused } from '../cluster/index.ts';

/**
 * The stale-fence metrics of issue 30: refusals of this node's own tenures, and the give-ups they
 * caused. Labels stay bounded: who refused (store or backend), never the shard or host.
 */
export function fenceRefusalMetrics(registry: Registry): (refused: ShardFenceRefused) => void {
  const refusedTotal = new Counter({
    name: 'metalfleet_shard_fence_refused_total',
    help: 'Fenced writes and backend calls of a shard tenure this node held, refused because the record had seen a later epoch of the shard',
    labelNames: ['by'], registers: [registry],
  });
  const retakesTotal = new Counter({
    name: 'metalfleet_shard_fence_retakes_total',
    help: 'Shards this node gave up and took again above the epoch that refused its fence',
    labelNames: ['by'], registers: [registry],
  });
  return ({ refusal, gaveUp }) => {
    refusedTotal.inc({ by: refusal.by });
    if (gaveUp) retakesTotal.inc({ by: gaveUp.by });
  };
}
