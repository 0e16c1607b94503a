import { randomBytes } from 'node:crypto';
import type { BusMessage, BusStatus, BusSubscription, Clock, KvBucket, KvBucketOptions, SubscribeOptions, Transport } from '../ports/index.ts';
import { BusError } from '../ports/index.ts';
import { MemoryKvStore } from './memory-kv.ts';
import { subjectMatches, validSubject } from './subject-match.ts';

// NATS semantics in one process, for the embedded mode and unit tests: wildcards, queue groups,
// request/reply with no-responders and timeouts, a payload limit, and delivery that is always
// asynchronous (a handler never runs inside the publish that caused it, as over a socket).

export interface MemoryBusOptions {
  /** Largest payload in bytes; default 1 MiB, the nats-server default. */
  readonly maxPayload?: number;
  /** Time for the KV store this bus creates (ignored when `kv` is given). */
  readonly clock?: Pick<Clock, 'now'>;
  /** Share a KV store with other buses (or keep one across bus restarts in a test). */
  readonly kv?: MemoryKvStore;
  /** Told when a subscription handler throws; the subscription carries on either way. */
  readonly onHandlerError?: (error: unknown, subject: string) => void;
}

export interface MemoryBus {
  /** A new connection to this bus, as a node would open one to a NATS server. */
  connect(name: string): Transport;
  readonly kv: MemoryKvStore;
}

const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

interface Sub {
  readonly pattern: string;
  readonly queue: string | undefined;
  readonly handler: (msg: BusMessage) => void;
  readonly owner: MemoryTransport;
  active: boolean;
  /** Messages routed to this subscription whose handler has not run yet (drain waits on them). */
  pending: number;
  /** Resolved once `pending` is back to zero (drain and close wait here). */
  readonly idle: (() => void)[];
}

export function createMemoryBus(options: MemoryBusOptions = {}): MemoryBus {
  const router = new Router(options.maxPayload ?? DEFAULT_MAX_PAYLOAD, options.onHandlerError);
  const kv = options.kv ?? new MemoryKvStore(options.clock);
  return { kv, connect: (name) => new MemoryTransport(name, router, kv) };
}

/** One connection on a private bus: the embedded single-process mode. */
export function createMemoryTransport(options: MemoryBusOptions = {}): Transport {
  return createMemoryBus(options).connect('memory');
}

class Router {
  private readonly subs = new Set<Sub>();
  // Round-robin rather than NATS's random pick: the same split on every run of a test.
  private readonly turns = new Map<string, number>();

  constructor(readonly maxPayload: number, private readonly onHandlerError?: (error: unknown, subject: string) => void) {}

  // Subscriptions each subject matches, so a message costs no pattern match per subscription;
  // dropped whenever a subscription comes or goes.
  private readonly matches = new Map<string, Sub[]>();

  add(sub: Sub): void {
    this.subs.add(sub);
    this.matches.clear();
  }

  remove(sub: Sub): void {
    this.subs.delete(sub);
    this.matches.clear();
  }

  private matching(subject: string): Sub[] {
    let subs = this.matches.get(subject);
    if (subs === undefined) {
      subs = [...this.subs].filter((sub) => subjectMatches(sub.pattern, subject));
      // Bounded: a bus that sees many distinct subjects (one inbox per request on NATS) starts over.
      if (this.matches.size >= 10_000) this.matches.clear();
      this.matches.set(subject, subs);
    }
    return subs;
  }

  /** Routes one message; returns how many subscriptions it went to. */
  route(subject: string, data: Uint8Array, reply: ((data: Uint8Array) => boolean) | null): number {
    const plain: Sub[] = [];
    const groups = new Map<string, Sub[]>();
    for (const sub of this.matching(subject)) {
      if (!sub.active) continue;
      if (sub.queue === undefined) plain.push(sub);
      else {
        const key = `${sub.queue}\u0000${sub.pattern}`;
        const members = groups.get(key) ?? [];
        members.push(sub);
        groups.set(key, members);
      }
    }
    const targets = plain;
    for (const [key, members] of groups) {
      const turn = this.turns.get(key) ?? 0;
      this.turns.set(key, turn + 1);
      targets.push(members[turn % members.length] as Sub);
    }
    for (const sub of targets) this.deliver(sub, subject, data, reply);
    return targets.length;
  }

  private deliver(sub: Sub, subject: string, data: Uint8Array, reply: ((data: Uint8Array) => boolean) | null): void {
    // Each receiver gets its own copy, as each socket reader would.
    const copy = Uint8Array.from(data);
    sub.pending++;
    setImmediate(() => {
      sub.pending--;
      if (sub.active) {
        const msg: BusMessage = {
          subject,
          data: copy,
          respond: (out) => (reply === null || sub.owner.closed ? false : sub.owner.checkedReply(subject, out, reply)),
        };
        try {
          sub.handler(msg);
        } catch (error) {
          this.onHandlerError?.(error, subject);
        }
      }
      if (sub.pending === 0) for (const wake of sub.idle.splice(0)) wake();
    });
  }
}

class MemoryTransport implements Transport {
  closed = false;
  private readonly subs = new Set<Sub>();
  private readonly listeners = new Set<(status: BusStatus) => void>();
  private readonly inflight = new Set<(error: BusError) => void>();

  constructor(readonly name: string, private readonly router: Router, private readonly store: MemoryKvStore) {}

  get maxPayload(): number {
    return this.router.maxPayload;
  }

  newInbox(): string {
    return `_INBOX.${randomBytes(11).toString('hex')}`;
  }

  publish(subject: string, data: Uint8Array): void {
    this.check(subject, data);
    this.router.route(subject, data, null);
  }

  request(subject: string, data: Uint8Array, options: { timeoutMs: number }): Promise<Uint8Array> {
    try {
      this.check(subject, data);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = (error: BusError | null, out?: Uint8Array): boolean => {
        if (done) return false;
        done = true;
        clearTimeout(timer);
        this.inflight.delete(fail);
        if (error) reject(error);
        else resolve(out as Uint8Array);
        return true;
      };
      const fail = (error: BusError): boolean => finish(error);
      const timer = setTimeout(() => fail(new BusError('timeout', subject, `no reply within ${options.timeoutMs} ms`)), options.timeoutMs);
      this.inflight.add(fail);
      // A reply that comes after the timeout still counts as sent, as NATS's respond() does.
      const receivers = this.router.route(subject, data, (out) => {
        finish(null, Uint8Array.from(out));
        return true;
      });
      if (receivers === 0) setImmediate(() => fail(new BusError('noResponders', subject, 'no subscriber is listening')));
    });
  }

  subscribe(subject: string, handler: (msg: BusMessage) => void, options: SubscribeOptions = {}): BusSubscription {
    if (this.closed) throw this.closedError(subject);
    if (!validSubject(subject, true)) throw new BusError('invalidMessage', subject, 'not a valid subject pattern');
    const sub: Sub = { pattern: subject, queue: options.queue, handler, owner: this, active: true, pending: 0, idle: [] };
    this.subs.add(sub);
    this.router.add(sub);
    const stop = (): void => {
      sub.active = false;
      this.subs.delete(sub);
      this.router.remove(sub);
    };
    return {
      unsubscribe: stop,
      drain: async () => {
        // Stop routing new messages here, but let the ones already on their way arrive.
        this.router.remove(sub);
        await settled(sub);
        stop();
      },
    };
  }

  async kv(bucket: string, options?: KvBucketOptions): Promise<KvBucket> {
    if (this.closed) throw this.closedError(`kv.${bucket}`);
    return this.store.bucket(bucket, options);
  }

  answers(): Promise<boolean> {
    return Promise.resolve(!this.closed);
  }

  onStatus(listener: (status: BusStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await Promise.all([...this.subs].map(async (sub) => {
      this.router.remove(sub);
      await settled(sub);
      sub.active = false;
    }));
    this.closed = true;
    this.subs.clear();
    for (const fail of [...this.inflight]) fail(this.closedError('request'));
    for (const listener of [...this.listeners]) listener('closed');
    this.listeners.clear();
  }

  /** Sends a reply on behalf of one of this connection's subscriptions. */
  checkedReply(subject: string, data: Uint8Array, reply: (data: Uint8Array) => boolean): boolean {
    if (data.length > this.maxPayload) throw tooLarge(subject, data.length, this.maxPayload);
    return reply(data);
  }

  private check(subject: string, data: Uint8Array): void {
    if (this.closed) throw this.closedError(subject);
    if (!validSubject(subject, false)) throw new BusError('invalidMessage', subject, 'not a valid subject to publish to');
    if (data.length > this.maxPayload) throw tooLarge(subject, data.length, this.maxPayload);
  }

  private closedError(subject: string): BusError {
    return new BusError('closed', subject, `connection ${this.name} is closed`);
  }
}

function settled(sub: Sub): Promise<void> {
  return sub.pending === 0 ? Promise.resolve() : new Promise((resolve) => sub.idle.push(resolve));
}

function tooLarge(subject: string, size: number, max: number): BusError {
  return new BusError('tooLarge', subject, `payload of ${size} bytes is over the bus limit of ${max} bytes`);
}
