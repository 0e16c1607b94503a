export interface MailboxOptions {
  capacity: number;
  overflow: 'reject' | 'drop-oldest';
}

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  factor?: number;
}

export interface SupervisionOptions {
  /** Restarts allowed within windowMs; one more crash gives up. */
  maxRestarts: number;
  windowMs: number;
  /** Delay before a restart: initialMs * factor^(crashes in window - 1), at most maxMs. */
  backoff: BackoffOptions;
  /** Called once when restarts are exhausted; the actor is then stopped. */
  onGiveUp?: (error: unknown, ctx: { path: string; name: string; restarts: number }) => void;
}

export interface SpawnOptions {
  mailbox?: Partial<MailboxOptions>;
  supervision?: Partial<SupervisionOptions>;
  /**
   * 'system': the actor's turns never wait for the event loop's slice to end and take up to
   * SYSTEM_THROUGHPUT messages or SYSTEM_TURN_MS (receive.ts), so an actor every host depends on (the capacity
   * broker) keeps answering within its callers' timeouts while 100,000 host turns queue. Only for
   * actors whose own work per message is small: the capacity proxy, whose turns tell hosts,
   * measured worse hand-offs as one (npm run bench -- capacity: p99 35-180 ms against 10-18).
   * Default 'normal'.
   */
  priority?: 'normal' | 'system';
}

export const defaultMailbox: Readonly<MailboxOptions> = Object.freeze({ capacity: 10_000, overflow: 'reject' });

export const defaultSupervision: Readonly<SupervisionOptions> = Object.freeze({
  maxRestarts: 5,
  windowMs: 60_000,
  backoff: Object.freeze({ initialMs: 100, maxMs: 30_000, factor: 2 }),
});

// 100,000 hosts spawned with the same options object share one resolved copy, not one each.
const mailboxCache = new WeakMap<object, Readonly<MailboxOptions>>();
const supervisionCache = new WeakMap<object, Readonly<SupervisionOptions>>();

export function resolveMailbox(partial: Partial<MailboxOptions> | undefined): Readonly<MailboxOptions> {
  if (partial === undefined) return defaultMailbox;
  let resolved = mailboxCache.get(partial);
  if (resolved === undefined) {
    resolved = Object.freeze({ ...defaultMailbox, ...partial });
    if (!Number.isInteger(resolved.capacity) || resolved.capacity < 1) {
      throw new RangeError(`mailbox.capacity must be an integer >= 1, got ${resolved.capacity}`);
    }
    if (resolved.overflow !== 'reject' && resolved.overflow !== 'drop-oldest') {
      throw new RangeError(`mailbox.overflow must be 'reject' or 'drop-oldest', got ${String(resolved.overflow)}`);
    }
    mailboxCache.set(partial, resolved);
  }
  return resolved;
}

export function resolveSupervision(partial: Partial<SupervisionOptions> | undefined): Readonly<SupervisionOptions> {
  if (partial === undefined) return defaultSupervision;
  let resolved = supervisionCache.get(partial);
  if (resolved === undefined) {
    const backoff = { ...defaultSupervision.backoff, ...partial.backoff };
    resolved = Object.freeze({ ...defaultSupervision, ...partial, backoff });
    if (!(resolved.maxRestarts >= 0) || !(resolved.windowMs > 0)) {
      throw new RangeError('supervision needs maxRestarts >= 0 and windowMs > 0');
    }
    if (!(backoff.initialMs >= 0) || !(backoff.maxMs >= backoff.initialMs) || !((backoff.factor ?? 2) >= 1)) {
      throw new RangeError('supervision.backoff needs 0 <= initialMs <= maxMs and factor >= 1');
    }
    supervisionCache.set(partial, resolved);
  }
  return resolved;
}
