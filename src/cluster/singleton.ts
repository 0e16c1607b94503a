// A cluster singleton (the capacity broker): every node keeps trying to take one lease key; the
// holder is elected, and deposed the moment its lease is lost (before anyone else can take it).
import type { Clock, KvBucket, KvEvent, Logger, TimerHandle } from '../ports/index.ts';
import { silentLogger } from '../ports/index.ts';
import type { Lease } from './lease.ts';
import { acquireLease } from './lease.ts';
import { errorMessage } from '../api/index.ts';

export interface SingletonOptions {
  readonly bucket: KvBucket;
  readonly key: string;
  readonly holder: string;
  readonly ttlMs: number;
  /** How often a non-holder tries the key; a delete of the key also triggers a try at once. */
  readonly retryMs?: number;
  readonly clock: Clock;
  readonly log?: Logger;
  readonly onElected: (epoch: number) => void;
  readonly onDeposed: (reason: string) => void;
}

export interface Singleton {
  isLeader(): boolean;
  epoch(): number | null;
  /** release: give the lease back so another node takes over at once (graceful shutdown). */
  stop(options?: { release: boolean }): Promise<void>;
}

export async function startSingleton(options: SingletonOptions): Promise<Singleton> {
  const log = options.log ?? silentLogger;
  const retryMs = options.retryMs ?? 250;
  let lease: Lease | null = null;
  let stopped = false;
  let trying = false;
  let timer: TimerHandle | null = null;

  const attempt = async (): Promise<void> => {
    if (stopped || lease !== null || trying) return;
    trying = true;
    try {
      const got = await acquireLease({
        bucket: options.bucket, key: options.key, holder: options.holder, ttlMs: options.ttlMs, clock: options.clock, log,
        onLost: (reason) => {
          lease = null;
          log.warn({ lease: options.key, reason }, 'singleton lease lost');
          options.onDeposed(`lease ${options.key} lost (${reason})`);
          schedule();
        },
      });
      if (got && !stopped) {
        lease = got;
        log.info({ lease: options.key, epoch: got.epoch }, 'singleton lease taken');
        options.onElected(got.epoch);
      } else if (got) {
        await got.release();
      }
    } catch (err) {
      log.debug({ lease: options.key, err: errorMessage(err) }, 'singleton lease attempt failed');
    } finally {
      trying = false;
      schedule();
    }
  };
  const schedule = (): void => {
    if (stopped || lease !== null || timer !== null) return;
    timer = options.clock.setTimeout(() => {
      timer = null;
      void attempt();
    }, retryMs);
  };
  const unwatch = await options.bucket.watch({
    key: options.key,
    onEvent: (e: KvEvent) => {
      if (e.op === 'delete') void attempt();
    },
  });
  await attempt();

  return {
    isLeader: () => lease !== null,
    epoch: () => lease?.epoch ?? null,
    async stop({ release } = { release: true }) {
      stopped = true;
      unwatch();
      if (timer) options.clock.clearTimeout(timer);
      const held = lease;
      lease = null;
      if (!held) return;
      options.onDeposed('node stopping');
      if (release) await held.release().catch(() => undefined);
      else held.abandon();
    },
  };
}
