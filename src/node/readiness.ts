import type { InformerStatus } from '../adapters/kube/index.ts';

/** How long an informer may fail before /readyz says the API server is out of reach. */
export const API_SERVER_DOWN_NOT_READY_MS = 30_000;

/**
 * Why a node whose informers synced once cannot do its work now: one of them has failed without
 * watching again for `limitMs` (the caches go stale, writes fail). A watch that restarts now and
 * then (the server ends every watch) is no reason for readiness to flap. Null when all is well.
 */
export function apiServerUnreachable(informers: readonly InformerStatus[], now: number, limitMs = API_SERVER_DOWN_NOT_READY_MS): string | null {
  const down = informers.find((i) => i.downSince !== null && now - i.downSince >= limitMs);
  if (!down) return null;
  return `the Kubernetes API server has not answered the ${down.resource} watch for ${Math.round((now - (down.downSince ?? now)) / 1000)} s: ${down.lastError ?? 'no reason given'}`;
}
