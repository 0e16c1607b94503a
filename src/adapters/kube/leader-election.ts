import type { KubeConfig, V1Lease } from '@kubernetes/client-node';
import { CoordinationV1Api, V1MicroTime } from '@kubernetes/client-node';
import type { Clock, Logger } from '../../ports/index.ts';
import { KubeCallError, toKubeCallError } from './errors.ts';
import type { Permission } from './kube-calls.ts';
import { MetalfleetError, errorMessage } from '../../api/index.ts';

// Leader election on a coordination.k8s.io/v1 Lease, as client-go's tools/leaderelection does it
// (reference/kube-api.md §10). @kubernetes/client-node 1.4 ships no leader election helper (only
// the generated CoordinationV1Api and the Lease models), so the loop is here.
//
// Safety rests on two rules from client-go:
// - a candidate takes a lease only once `leaseDurationSeconds` has passed on its OWN clock since
//   it last saw the record change; the holder's renewTime is never compared with our clock;
// - the holder gives up (and its caller stops driving) when it has not renewed for
//   `renewDeadline`, which is shorter than the lease: it stops before anyone may take over.

/** The calls the election makes: what the ClusterRole must grant (see the report's RBAC request). */
export const LEASE_PERMISSIONS: readonly Permission[] = [
  { apiGroup: 'coordination.k8s.io', resource: 'leases', verb: 'get' },
  { apiGroup: 'coordination.k8s.io', resource: 'leases', verb: 'create' },
  { apiGroup: 'coordination.k8s.io', resource: 'leases', verb: 'update' },
];
const [GET, CREATE, UPDATE] = LEASE_PERMISSIONS as [Permission, Permission, Permission];

/** client-go's defaults (leaderelection.go and the component-base flags). */
export const DEFAULT_LEASE_TIMING: LeaseTiming = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

/** client-go's JitterFactor: waits between tries are retryPeriod × [1, 1.2). */
const JITTER = 1.2;

export interface LeaseTiming {
  /** How long a candidate waits, after it last saw the record change, before taking the lease. */
  readonly leaseDurationMs: number;
  /** How long the holder keeps driving without a successful renewal. */
  readonly renewDeadlineMs: number;
  /** Between tries to acquire or renew. */
  readonly retryPeriodMs: number;
}

export class LeaderElectionConfigError extends MetalfleetError {
  constructor(message: string) {
    super('leaderElectionConfig', message, false);
    this.name = 'LeaderElectionConfigError';
  }
}

/** client-go's checks (NewLeaderElector): the holder must stop before the lease can lapse. */
export function checkLeaseTiming(t: LeaseTiming): void {
  if (!(t.retryPeriodMs > 0)) throw new LeaderElectionConfigError(`retry period must be greater than 0 (got ${t.retryPeriodMs} ms)`);
  if (t.leaseDurationMs < 1_000) throw new LeaderElectionConfigError(`lease duration must be at least 1000 ms (Lease.spec.leaseDurationSeconds is whole seconds; got ${t.leaseDurationMs} ms)`);
  if (!(t.leaseDurationMs > t.renewDeadlineMs)) throw new LeaderElectionConfigError(`lease duration (${t.leaseDurationMs} ms) must be greater than the renew deadline (${t.renewDeadlineMs} ms)`);
  if (!(t.renewDeadlineMs > JITTER * t.retryPeriodMs)) throw new LeaderElectionConfigError(`renew deadline (${t.renewDeadlineMs} ms) must be greater than ${JITTER} × the retry period (${t.retryPeriodMs} ms)`);
}

/** The spec of a Lease as the election reads and writes it; times are wall-clock ms. */
export interface LeaseRecord {
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  readonly acquireTime: number | null;
  readonly renewTime: number | null;
  readonly leaseTransitions: number;
}

export interface StoredLease {
  readonly record: LeaseRecord;
  readonly resourceVersion: string;
}

/** Get, create and replace one Lease; failures are KubeCallError (409 on a stale resourceVersion). */
export interface LeaseClient {
  get(): Promise<StoredLease | null>;
  create(record: LeaseRecord): Promise<StoredLease>;
  /** A PUT carrying `resourceVersion`: fails with 409 when someone wrote since. */
  update(record: LeaseRecord, resourceVersion: string): Promise<StoredLease>;
}

export interface LeaseRef {
  readonly namespace: string;
  readonly name: string;
}

/**
 * The Lease over client-node's CoordinationV1Api. Its own API client, outside the adapter's
 * KubeCalls: a renewal must never wait behind 32 status writes for a request slot.
 */
export function kubeLeaseClient(config: KubeConfig, ref: LeaseRef): LeaseClient {
  const api = config.makeApiClient(CoordinationV1Api);
  const what = (verb: string): string => `${verb} Lease ${ref.namespace}/${ref.name}`;
  const call = async <T>(permission: Permission, verb: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      throw toKubeCallError(what(verb), error, permission);
    }
  };
  return {
    async get() {
      try {
        return stored(await call(GET, 'reading', () => api.readNamespacedLease({ name: ref.name, namespace: ref.namespace })));
      } catch (error) {
        if (error instanceof KubeCallError && error.notFound) return null;
        throw error;
      }
    },
    async create(record) {
      return stored(await call(CREATE, 'creating', () => api.createNamespacedLease({ namespace: ref.namespace, body: leaseBody(ref, record) })));
    },
    async update(record, resourceVersion) {
      return stored(await call(UPDATE, 'renewing', () => api.replaceNamespacedLease({ name: ref.name, namespace: ref.namespace, body: leaseBody(ref, record, resourceVersion) })));
    },
  };
}

function leaseBody(ref: LeaseRef, r: LeaseRecord, resourceVersion?: string): V1Lease {
  // MicroTime: exactly six fraction digits, or the API server refuses the Lease (§10).
  const micro = (ms: number | null): V1MicroTime | undefined => (ms === null ? undefined : new V1MicroTime(ms));
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: ref.name, namespace: ref.namespace, ...(resourceVersion ? { resourceVersion } : {}) },
    spec: {
      holderIdentity: r.holderIdentity,
      leaseDurationSeconds: r.leaseDurationSeconds,
      ...(r.acquireTime !== null ? { acquireTime: micro(r.acquireTime) } : {}),
      ...(r.renewTime !== null ? { renewTime: micro(r.renewTime) } : {}),
      leaseTransitions: r.leaseTransitions,
    },
  };
}

function stored(lease: V1Lease): StoredLease {
  const spec = lease.spec ?? {};
  // The client does not revive MicroTime fields: they come back as strings (or Dates).
  const time = (v: unknown): number | null => {
    if (v instanceof Date) return v.getTime();
    if (typeof v !== 'string') return null;
    const ms = Date.parse(v);
    return Number.isNaN(ms) ? null : ms;
  };
  return {
    resourceVersion: lease.metadata?.resourceVersion ?? '',
    record: {
      holderIdentity: spec.holderIdentity ?? '',
      leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
      acquireTime: time(spec.acquireTime),
      renewTime: time(spec.renewTime),
      leaseTransitions: spec.leaseTransitions ?? 0,
    },
  };
}

export interface LeaderElectorOptions {
  readonly client: LeaseClient;
  /** Unique per process (client-go: hostname + a random id): a restarted process is a new candidate. */
  readonly identity: string;
  readonly timing: LeaseTiming;
  readonly clock: Clock;
  readonly log: Logger;
  readonly random?: () => number;
  /** Once the lease is held. */
  readonly onStartedLeading: () => void;
  /** The lease is no longer held (not renewed within renewDeadline, or taken): stop driving now. */
  readonly onStoppedLeading: (reason: string) => void;
}

export interface LeaderElector {
  readonly identity: string;
  isLeader(): boolean;
  /**
   * Asked at the moment of a backend call: leading AND renewed within the renew deadline, read
   * from the clock, not from the deadline timer, which a stalled event loop fires late.
   */
  holdsLease(): boolean;
  /** The holder this candidate last saw, '' for none. */
  observedHolder(): string;
  /** Why the last try failed (no answer, 403, …); null after a try that got through. */
  lastError(): string | null;
  /** Resolves once the lease is held; rejects if stopped first. */
  readonly elected: Promise<void>;
  /** Stops trying; a holder with `release` gives the lease up (holder "", duration 1 s) so a peer takes it at once. */
  stop(options?: { release?: boolean }): Promise<void>;
}

/** Starts campaigning at once: acquire, then renew every retry period until stopped or lost. */
export function startLeaderElector(o: LeaderElectorOptions): LeaderElector {
  checkLeaseTiming(o.timing);
  const { client, clock, identity, log, timing } = o;
  const random = o.random ?? Math.random;
  // Deadlines are measured on a clock that never steps back.
  const mono = (): number => clock.monotonic?.() ?? clock.now();
  let observed: StoredLease | null = null;
  let observedKey = '';
  let observedAt = 0;
  let leading = false;
  let stopped = false;
  let lastRenew = 0;
  let retryTimer: ReturnType<Clock['setTimeout']> | null = null;
  let deadlineTimer: ReturnType<Clock['setTimeout']> | null = null;
  let inFlight: Promise<void> = Promise.resolve();
  let lastError: string | null = null;
  let resolveElected!: () => void;
  let rejectElected!: (e: Error) => void;
  const elected = new Promise<void>((resolve, reject) => {
    resolveElected = resolve;
    rejectElected = reject;
  });
  elected.catch(() => undefined);

  const durationSeconds = Math.ceil(timing.leaseDurationMs / 1_000);

  /** client-go's tryAcquireOrRenew: true when this candidate holds the lease after the call. */
  async function tryAcquireOrRenew(): Promise<boolean> {
    const startedAt = mono();
    const wallNow = clock.now();
    const current = await client.get();
    if (current === null) {
      const created = await client.create({ holderIdentity: identity, leaseDurationSeconds: durationSeconds, acquireTime: wallNow, renewTime: wallNow, leaseTransitions: 0 });
      observe(created, startedAt);
      return true;
    }
    const key = JSON.stringify(current.record);
    // The expiry clock restarts whenever the record changes, as this process saw it.
    if (key !== observedKey) observe(current, startedAt);
    const holder = current.record.holderIdentity;
    const isHolder = holder === identity;
    const lapsed = observedAt + current.record.leaseDurationSeconds * 1_000 <= startedAt;
    if (holder !== '' && !isHolder && !lapsed) return false;
    const record: LeaseRecord = {
      holderIdentity: identity,
      leaseDurationSeconds: durationSeconds,
      acquireTime: isHolder ? current.record.acquireTime : wallNow,
      renewTime: wallNow,
      leaseTransitions: isHolder ? current.record.leaseTransitions : current.record.leaseTransitions + 1,
    };
    // A stale resourceVersion fails with 409: someone else wrote first, and this try is lost.
    observe(await client.update(record, current.resourceVersion), startedAt);
    return true;
  }

  function observe(lease: StoredLease, at: number): void {
    observed = lease;
    observedKey = JSON.stringify(lease.record);
    observedAt = at;
  }

  function schedule(): void {
    if (stopped) return;
    const delay = timing.retryPeriodMs * (1 + (JITTER - 1) * random());
    retryTimer = clock.setTimeout(() => {
      retryTimer = null;
      inFlight = attempt();
    }, leading ? timing.retryPeriodMs : delay, true);
  }

  async function attempt(): Promise<void> {
    const startedAt = mono();
    let held = false;
    let failure: unknown = null;
    try {
      held = await tryAcquireOrRenew();
    } catch (error) {
      failure = error;
    }
    if (stopped) return;
    // A lost race (409) is the protocol working, not a problem to report.
    lastError = failure === null || (failure instanceof KubeCallError && failure.conflict) ? null : describe(failure);
    if (held) {
      // The lease counts from before the request was sent: that is the earliest a peer saw it.
      lastRenew = startedAt;
      if (!leading) becomeLeader();
      else armDeadline();
    } else if (leading) {
      if (failure === null) {
        lose(`the lease was taken by ${observed?.record.holderIdentity ?? 'another candidate'}`);
        return;
      }
      log.warn({ err: describe(failure), identity }, 'leader election: renewing the lease failed; retrying');
    } else if (failure !== null) {
      const conflict = failure instanceof KubeCallError && failure.conflict;
      if (conflict) log.debug({ identity }, 'leader election: another candidate wrote the lease first');
      else log.warn({ err: describe(failure), identity }, 'leader election: cannot read or write the lease; retrying');
    }
    schedule();
  }

  function becomeLeader(): void {
    leading = true;
    armDeadline();
    log.info({ identity, transitions: observed?.record.leaseTransitions ?? 0 }, 'leader election: lease acquired, leading');
    resolveElected();
    o.onStartedLeading();
  }

  // Armed on every renewal: fires even when a request hangs, so a stalled API server cannot
  // keep this process driving past its deadline.
  function armDeadline(): void {
    if (deadlineTimer !== null) clock.clearTimeout(deadlineTimer);
    const left = lastRenew + timing.renewDeadlineMs - mono();
    deadlineTimer = clock.setTimeout(() => {
      deadlineTimer = null;
      lose(`the lease was not renewed within the renew deadline (${timing.renewDeadlineMs} ms)`);
    }, Math.max(0, left), true);
  }

  function lose(reason: string): void {
    if (!leading || stopped) return;
    leading = false;
    stopped = true;
    clearTimers();
    log.error({ identity, reason }, 'leader election: lost the lease; stop driving hosts');
    o.onStoppedLeading(reason);
  }

  function clearTimers(): void {
    if (retryTimer !== null) clock.clearTimeout(retryTimer);
    if (deadlineTimer !== null) clock.clearTimeout(deadlineTimer);
    retryTimer = null;
    deadlineTimer = null;
  }

  inFlight = attempt();

  return {
    identity,
    isLeader: () => leading,
    holdsLease: () => leading && !stopped && mono() - lastRenew < timing.renewDeadlineMs,
    observedHolder: () => observed?.record.holderIdentity ?? '',
    lastError: () => lastError,
    elected,
    async stop({ release = false } = {}) {
      const wasLeading = leading;
      stopped = true;
      leading = false;
      clearTimers();
      rejectElected(new Error('leader election stopped before the lease was acquired'));
      await inFlight.catch(() => undefined);
      if (!release || !wasLeading || observed === null) return;
      // client-go's release: an empty holder and a 1 s lease, so a peer need not wait out the lease.
      const now = clock.now();
      try {
        await client.update({ ...observed.record, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now }, observed.resourceVersion);
        log.info({ identity }, 'leader election: lease released');
      } catch (error) {
        log.warn({ err: describe(error), identity }, 'leader election: releasing the lease failed; peers take it when it lapses');
      }
    },
  };
}

function describe(error: unknown): string {
  return errorMessage(error);
}
