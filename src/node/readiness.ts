import type { InformerStatus } from '../adapters/kube/index.ts';
import type { Clock, TimerHandle } from '../ports/index.ts';
import { errorMessage } from '../api/index.ts';

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

/** Consecutive failed asks before /readyz says JetStream is unavailable: one lost answer is no outage. */
export const JETSTREAM_FAILURES_NOT_READY = 2;

export interface JetStreamWatch {
  /** Why the node cannot use its JetStream now; null while it answers. */
  reason(): string | null;
  stop(): void;
}

export interface JetStreamWatchOptions {
  /** One ask: null when JetStream answered, else why not (src/bus askJetStream). */
  readonly ask: () => Promise<string | null>;
  readonly everyMs: number;
  readonly clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  readonly failuresBeforeNotReady?: number;
}

/**
 * Asks JetStream every `everyMs` whether it can serve requests (a clustered JetStream needs a
 * majority of its servers: with R3 buckets, 2 of 3). The connection can be up while the cluster
 * behind it has no quorum; every lease renewal and heartbeat then fails, so the node is not
 * ready, and says it is NATS JetStream it waits for.
 */
export function watchJetStream(options: JetStreamWatchOptions): JetStreamWatch {
  const threshold = options.failuresBeforeNotReady ?? JETSTREAM_FAILURES_NOT_READY;
  let failures = 0;
  let last: string | null = null;
  let timer: TimerHandle | null = null;
  let stopped = false;
  const round = async (): Promise<void> => {
    const answer = await options.ask().catch((err: unknown) => `NATS JetStream could not be asked: ${errorMessage(err)}`);
    if (stopped) return;
    failures = answer === null ? 0 : failures + 1;
    last = answer;
    timer = options.clock.setTimeout(() => void round(), options.everyMs);
  };
  void round();
  return {
    reason: () => (failures >= threshold ? last : null),
    stop() {
      stopped = true;
      if (timer !== null) options.clock.clearTimeout(timer);
    },
  };
}
