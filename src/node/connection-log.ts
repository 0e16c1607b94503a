import type { Logger, Transport } from '../ports/index.ts';

/**
 * Logs the node's bus connection dropping (one warning per outage) and coming back (one info line
 * with how long it was down). Without it an outage showed only as its consequences — every shard's
 * "lease lost" with reason "expired" and a heartbeat timeout with a stack — and nothing told the
 * operator that NATS was what went away. Returns the unsubscribe.
 */
export function logConnection(transport: Transport, log: Logger, what: string, now: () => number): () => void {
  let downSince: number | null = null;
  return transport.onStatus((status) => {
    if (status === 'disconnected' || status === 'reconnecting') {
      if (downSince !== null) return;
      downSince = now();
      log.warn({ connection: transport.name, status }, `${what} connection lost: reconnecting; shard leases cannot be renewed meanwhile, so this node stops their hosts before the leases expire and other nodes take them over`);
      return;
    }
    if (status === 'connected' && downSince !== null) {
      log.info({ connection: transport.name, downMs: Math.max(0, now() - downSince) }, `${what} connection back`);
      downSince = null;
    }
  });
}
