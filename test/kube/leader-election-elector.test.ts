// The Lease elector as client-go's: expiry by observed time on the candidate's own clock, renewal
// every retry period, optimistic concurrency, and a leader that stops before a peer may take over.
// An in-memory Lease with resourceVersions and a manual clock; the client over the real API
// (the Kubernetes API test server) at the end.
import test from 'ava';
import { createManualClock } from '../../src/actors/runtime/index.ts';
import type { ManualClock } from '../../src/actors/runtime/index.ts';
import { KubeCallError } from '../../src/adapters/kube/errors.ts';
import type { LeaderElector, LeaseClient, LeaseRecord, LeaseTiming, StoredLease } from '../../src/adapters/kube/leader-election.ts';
import { checkLeaseTiming, DEFAULT_LEASE_TIMING, kubeLeaseClient, LeaderElectionConfigError, startLeaderElector } from '../../src/adapters/kube/leader-election.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { startApi } from './support/kube-node.ts';

const TIMING: LeaseTiming = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

/** One Lease as the API server keeps it: every write bumps the resourceVersion; a stale one is 409. */
class MemoryLease implements LeaseClient {
  stored: StoredLease | null = null;
  private rv = 0;
  /** While set, every call fails as an unreachable API server would. */
  down = false;
  writes = 0;

  async get(): Promise<StoredLease | null> {
    this.check('reading');
    return this.stored;
  }

  async create(record: LeaseRecord): Promise<StoredLease> {
    this.check('creating');
    if (this.stored) throw new KubeCallError('creating Lease', 409, 'AlreadyExists', 'AlreadyExists (HTTP 409)');
    return this.write(record);
  }

  async update(record: LeaseRecord, resourceVersion: string): Promise<StoredLease> {
    this.check('renewing');
    if (this.stored?.resourceVersion !== resourceVersion) throw new KubeCallError('renewing Lease', 409, 'Conflict', 'Conflict (HTTP 409)');
    return this.write(record);
  }

  /** Someone else's write (another candidate, or a holder on another clock). */
  put(record: LeaseRecord): void {
    this.write(record);
  }

  private write(record: LeaseRecord): StoredLease {
    this.writes += 1;
    this.stored = { record, resourceVersion: String(++this.rv) };
    return this.stored;
  }

  private check(what: string): void {
    if (this.down) throw new KubeCallError(`${what} Lease`, null, 'ECONNREFUSED', 'connection refused');
  }
}

// Lets the fake's promise chains run after the clock moved.
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Moves the clock in steps of `step`, letting each try finish, `ms` in all. */
async function run(clock: ManualClock, ms: number, step = 100): Promise<void> {
  for (let done = 0; done < ms; done += step) {
    clock.advance(Math.min(step, ms - done));
    await settle();
  }
}

interface Candidate {
  readonly elector: LeaderElector;
  readonly events: string[];
}

function candidate(identity: string, client: LeaseClient, clock: ManualClock, timing = TIMING): Candidate {
  const events: string[] = [];
  const elector = startLeaderElector({
    client, identity, timing, clock, log: silentLogger, random: () => 0,
    onStartedLeading: () => events.push(`started@${clock.now()}`),
    onStoppedLeading: (reason) => events.push(`stopped@${clock.now()}: ${reason}`),
  });
  return { elector, events };
}

const ghost = (renewTime: number): LeaseRecord => ({ holderIdentity: 'ghost', leaseDurationSeconds: 15, acquireTime: renewTime, renewTime, leaseTransitions: 4 });

test('leader election - the first candidate creates the Lease and leads; it renews every retry period', async (t) => {
  const clock = createManualClock(1_000_000);
  const lease = new MemoryLease();
  const a = candidate('a', lease, clock);
  await settle();
  t.true(a.elector.isLeader());
  t.deepEqual(a.events, ['started@1000000']);
  t.like(lease.stored?.record, { holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0, acquireTime: 1_000_000 });
  await run(clock, 10_000);
  // One write per retry period, the first (the create) included; acquireTime stays.
  t.is(lease.writes, 6);
  t.like(lease.stored?.record, { holderIdentity: 'a', acquireTime: 1_000_000, renewTime: 1_010_000 });
  await a.elector.stop();
});

test('leader election - a stale-looking Lease is taken only after the lease duration on the candidate\'s own clock', async (t) => {
  const clock = createManualClock(1_000_000);
  const lease = new MemoryLease();
  // The holder's renewTime is an hour behind our clock (a dead holder, or clock skew): client-go
  // does not compare it with its clock, it waits a whole lease from when it first saw the record.
  lease.put(ghost(1_000_000 - 3_600_000));
  const b = candidate('b', lease, clock);
  await settle();
  t.false(b.elector.isLeader());
  t.is(b.elector.observedHolder(), 'ghost');
  await run(clock, 14_000);
  t.false(b.elector.isLeader(), 'not before 15 s of seeing no change');
  await run(clock, 3_000);
  t.true(b.elector.isLeader());
  t.like(lease.stored?.record, { holderIdentity: 'b', leaseTransitions: 5 });
  await b.elector.stop();
});

test('leader election - a holder that keeps renewing is never taken over, whatever its timestamps say', async (t) => {
  const clock = createManualClock(1_000_000);
  const lease = new MemoryLease();
  lease.put(ghost(0));
  const b = candidate('b', lease, clock);
  // The holder renews every 2 s with a renewTime from a clock a day behind: each change restarts
  // the candidate's wait.
  for (let i = 0; i < 30; i++) {
    await run(clock, 2_000);
    lease.put(ghost(i));
  }
  t.false(b.elector.isLeader());
  t.deepEqual(b.events, []);
  await b.elector.stop();
});

test('leader election - two candidates racing for a free Lease: resourceVersions let exactly one win', async (t) => {
  const clock = createManualClock(1_000_000);
  const lease = new MemoryLease();
  lease.put({ holderIdentity: '', leaseDurationSeconds: 1, acquireTime: null, renewTime: null, leaseTransitions: 2 });
  const a = candidate('a', lease, clock);
  const b = candidate('b', lease, clock);
  await run(clock, 20_000);
  t.is([a, b].filter((c) => c.elector.isLeader()).length, 1);
  t.is(lease.stored?.record.leaseTransitions, 3);
  await a.elector.stop();
  await b.elector.stop();
});

test('leader election - a leader that cannot renew stops at the renew deadline, before a standby may take over', async (t) => {
  const clock = createManualClock(1_000_000);
  const lease = new MemoryLease();
  const a = candidate('a', lease, clock);
  await settle();
  const b = candidate('b', lease, clock);
  await run(clock, 4_000);
  t.true(a.elector.isLeader());
  // A's requests now fail (a partition on A's side only): B still reads the Lease.
  const renewed = lease.stored?.record.renewTime ?? 0;
  // The API server stops answering; B, seeing no change, keeps its clock from A's last renewal.
  lease.down = true;
  await run(clock, 9_000);
  t.true(a.elector.isLeader(), 'still inside the renew deadline');
  await run(clock, 1_100);
  t.false(a.elector.isLeader());
  const [, stopped] = a.events;
  t.regex(stopped ?? '', /^stopped@\d+: the lease was not renewed within the renew deadline \(10000 ms\)/);
  const stoppedAt = Number(/stopped@(\d+)/.exec(stopped ?? '')?.[1]);
  t.true(stoppedAt - renewed <= TIMING.renewDeadlineMs + TIMING.retryPeriodMs);
  lease.down = false;
  await run(clock, 20_000);
  t.true(b.elector.isLeader());
  const takenAt = lease.stored?.record.acquireTime ?? 0;
  // B took it a whole lease after the last renewal it saw; A had stopped well before.
  t.true(takenAt - stoppedAt >= TIMING.leaseDurationMs - TIMING.renewDeadlineMs - TIMING.retryPeriodMs, `A stopped at ${stoppedAt}, B took over at ${takenAt}`);
  t.true(takenAt >= renewed + TIMING.leaseDurationMs);
  await b.elector.stop();
});

test('leader election - a leader that sees another holder stops at once', async (t) => {
  const clock = createManualClock(1_000_000);
  const lease = new MemoryLease();
  const a = candidate('a', lease, clock);
  await settle();
  lease.put({ ...ghost(clock.now()), holderIdentity: 'usurper' });
  await run(clock, 2_500);
  t.false(a.elector.isLeader());
  t.regex(a.events[1] ?? '', /the lease was taken by usurper/);
});

test('leader election - a released Lease is taken at the next try, not a lease later', async (t) => {
  const clock = createManualClock(1_000_000);
  const lease = new MemoryLease();
  const a = candidate('a', lease, clock);
  await settle();
  const b = candidate('b', lease, clock);
  await run(clock, 4_000);
  await a.elector.stop({ release: true });
  t.like(lease.stored?.record, { holderIdentity: '', leaseDurationSeconds: 1 });
  await run(clock, 2_500);
  t.true(b.elector.isLeader());
  await b.elector.stop();
});

test('leader election - stopping a standby rejects its wait', async (t) => {
  const clock = createManualClock(1_000_000);
  const lease = new MemoryLease();
  lease.put(ghost(clock.now()));
  const b = candidate('b', lease, clock);
  await settle();
  await b.elector.stop();
  await t.throwsAsync(b.elector.elected, { message: /stopped before the lease was acquired/ });
});

test('leader election - timings: client-go\'s defaults, and the rules that keep the leader ahead of the lease', (t) => {
  t.deepEqual(DEFAULT_LEASE_TIMING, { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
  t.notThrows(() => checkLeaseTiming(DEFAULT_LEASE_TIMING));
  t.throws(() => checkLeaseTiming({ ...DEFAULT_LEASE_TIMING, renewDeadlineMs: 15_000 }), { instanceOf: LeaderElectionConfigError, message: /must be greater than the renew deadline/ });
  t.throws(() => checkLeaseTiming({ ...DEFAULT_LEASE_TIMING, retryPeriodMs: 9_000 }), { message: /1\.2 × the retry period/ });
  t.throws(() => checkLeaseTiming({ leaseDurationMs: 500, renewDeadlineMs: 300, retryPeriodMs: 100 }), { message: /whole seconds/ });
});

test('leader election - the Lease client over the API: create, renew with the resourceVersion, 409 when stale, MicroTime with 6 digits', async (t) => {
  const api = await startApi();
  t.teardown(() => api.close());
  const client = kubeLeaseClient(api.kubeConfig(), { namespace: 'lab', name: 'ctrl' });
  t.is(await client.get(), null);
  const at = Date.UTC(2026, 0, 2, 3, 4, 5, 123);
  const created = await client.create({ holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: at, renewTime: at, leaseTransitions: 0 });
  const raw = api.get({ resource: 'leases', namespace: 'lab', name: 'ctrl' }) as { spec: { renewTime: string; acquireTime: string } };
  t.is(raw.spec.renewTime, '2026-01-02T03:04:05.123000Z');
  t.deepEqual(created.record, { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: at, renewTime: at, leaseTransitions: 0 });
  const renewed = await client.update({ ...created.record, renewTime: at + 2_000 }, created.resourceVersion);
  t.is((await client.get())?.record.renewTime, at + 2_000);
  const stale = await t.throwsAsync(client.update({ ...created.record, holderIdentity: 'b' }, created.resourceVersion), { instanceOf: KubeCallError });
  t.true(stale.conflict);
  t.not(renewed.resourceVersion, created.resourceVersion);
  api.failNext({ resource: 'leases', method: 'PUT', status: 403, message: '' });
  const forbidden = await t.throwsAsync(client.update(renewed.record, renewed.resourceVersion), { instanceOf: KubeCallError });
  t.regex(forbidden.message, /^renewing Lease lab\/ctrl: Forbidden \(HTTP 403\)/);
});

test('leader election - holdsLease reads the clock at the call: a stalled loop whose deadline timer has not fired yet does not drive', async (t) => {
  const manual = createManualClock(1_000_000);
  let stalledMs = 0;
  // Time that passed while the event loop was blocked: the clock moved, no timer ran yet.
  const clock = { ...manual, now: () => manual.now() + stalledMs, monotonic: () => manual.now() + stalledMs };
  const lease = new MemoryLease();
  const elector = startLeaderElector({ client: lease, identity: 'a', timing: TIMING, clock, log: silentLogger, random: () => 0, onStartedLeading: () => undefined, onStoppedLeading: () => undefined });
  await settle();
  t.true(elector.holdsLease());
  stalledMs = TIMING.renewDeadlineMs;
  t.true(elector.isLeader(), 'the deadline timer has not run');
  t.false(elector.holdsLease());
  await elector.stop();
});
