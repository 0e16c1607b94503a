// What an R3 bucket on three nats-servers (as deploy/nats runs them) does when one server dies,
// stalls past the RAFT election timeout, or comes back with an empty disk, seen through the
// project's own KV adapter (src/bus/nats-kv.ts). Each test starts its own three servers. These
// servers are 2.9.10: what is shown here holds for it; production pins a later release.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { connectNats } from '../../src/bus/index.ts';
import type { KvBucket, Transport } from '../../src/ports/index.ts';
import type { NatsCluster, StreamCopy } from '../support/nats-cluster.ts';
import { startNatsCluster } from '../support/nats-cluster.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { waitUntil } from '../support/wait.ts';

const cluster = natsServerInstalled() ? test.serial : test.skip;

const BUCKET = 'faults';
const STREAM = `KV_${BUCKET}`;
// A stream leader lost to kill -9 or SIGSTOP is replaced after the RAFT election timeout (a few
// seconds on 2.9); a loaded 2-core machine can take several times that.
const RECOVERY_MS = 45_000;
const enc = new TextEncoder();
const dec = new TextDecoder();

interface World {
  readonly nats: NatsCluster;
  /** Connections the test opened; closed at the end. */
  readonly transports: Transport[];
  /** A connection to these servers only (indexes), and the bucket at R3 on it. */
  open(servers: readonly number[], name: string): Promise<KvBucket>;
}

async function withNatsCluster(t: ExecutionContext, body: (w: World) => Promise<void>): Promise<void> {
  t.timeout(110_000);
  const nats = await startNatsCluster();
  const transports: Transport[] = [];
  const world: World = {
    nats,
    transports,
    async open(servers, name) {
      // A short reconnect wait: a client whose server was killed moves to another quickly.
      const transport = await connectNats({ servers: servers.map((i) => nats.urls[i]!), name, reconnectTimeWaitMs: 250, timeoutMs: 10_000 });
      transports.push(transport);
      return transport.kv(BUCKET, { replicas: 3, history: 1 });
    },
  };
  try {
    await body(world);
  } catch (err) {
    for (const s of nats.servers) t.log(`--- ${s.name} (running: ${s.running}):\n${s.logTail(12)}`);
    throw err;
  } finally {
    await Promise.all(transports.map((tr) => tr.close().catch(() => undefined)));
    await nats.dispose();
  }
}

/** Tries op until it succeeds (a stream without a leader refuses for a while); fails with the last error. */
async function eventually<T>(what: string, op: () => Promise<T>, timeoutMs = RECOVERY_MS): Promise<T> {
  let last: unknown = null;
  let out: { value: T } | null = null;
  try {
    await waitUntil(async () => {
      try {
        out = { value: await op() };
        return true;
      } catch (err) {
        last = err;
        return false;
      }
    }, timeoutMs, what, 100);
  } catch (err) {
    throw new Error(`${(err as Error).message}; last error: ${last instanceof Error ? last.message : String(last)}`, { cause: last });
  }
  return (out as unknown as { value: T }).value;
}

async function putAll(kv: KvBucket, prefix: string, count: number): Promise<Map<string, string>> {
  const written = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    const key = `${prefix}-${i}`;
    const value = `${prefix}-value-${i}`;
    await kv.put(key, enc.encode(value));
    written.set(key, value);
  }
  return written;
}

/** Every key of `expected` read back through kv; the keys whose value differs (or is gone). */
async function missing(kv: KvBucket, expected: ReadonlyMap<string, string>): Promise<string[]> {
  const wrong: string[] = [];
  for (const [key, value] of expected) {
    const entry = await kv.get(key);
    if (!entry || dec.decode(entry.value) !== value) wrong.push(key);
  }
  return wrong;
}

/** The bucket's stream leader, as the first answering server other than `except` reports it. */
async function streamLeader(nats: NatsCluster, except: readonly number[] = []): Promise<string | null> {
  for (let i = 0; i < nats.servers.length; i++) {
    if (except.includes(i)) continue;
    const copy = await nats.streamCopy(i, STREAM);
    if (copy?.leader) return copy.leader;
  }
  return null;
}

const indexOf = (nats: NatsCluster, name: string): number => nats.servers.findIndex((s) => s.name === name);

/**
 * Waits until server i holds the same stream state as the leader does, and names the leader the
 * other servers name (a resumed old leader may still believe it leads for a moment).
 */
async function untilCaughtUp(nats: NatsCluster, i: number, what: string): Promise<{ copy: StreamCopy; leaderCopy: StreamCopy }> {
  let result: { copy: StreamCopy; leaderCopy: StreamCopy } | null = null;
  await waitUntil(async () => {
    const copy = await nats.streamCopy(i, STREAM);
    if (!copy?.leader || copy.leader !== await streamLeader(nats, [i])) return false;
    const leaderCopy = await nats.streamCopy(indexOf(nats, copy.leader), STREAM);
    if (!leaderCopy || leaderCopy.leader !== copy.leader) return false;
    result = { copy, leaderCopy };
    return copy.lastSeq === leaderCopy.lastSeq && copy.messages === leaderCopy.messages;
  }, RECOVERY_MS, what, 200);
  return result as unknown as { copy: StreamCopy; leaderCopy: StreamCopy };
}

cluster('nats cluster - the R3 bucket has a copy on each of the three servers', async (t) => {
  await withNatsCluster(t, async ({ nats, open }) => {
    const kv = await open([0, 1, 2], 'writer');
    await putAll(kv, 'k', 5);
    for (let i = 0; i < 3; i++) {
      const { copy } = await untilCaughtUp(nats, i, `${nats.servers[i]!.name} has the 5 writes`);
      t.is(copy.messages, 5, `${nats.servers[i]!.name}'s copy`);
    }
  });
});

cluster('nats cluster - kill -9 of the bucket\'s stream leader: reads and writes carry on through the other two and no acknowledged write is lost', async (t) => {
  await withNatsCluster(t, async ({ nats, open }) => {
    const kv = await open([0, 1, 2], 'writer');
    const before = await putAll(kv, 'before', 50);
    let casRevision = await kv.create('cas', enc.encode('0'));
    casRevision = await kv.update('cas', enc.encode('1'), casRevision);
    const leader = await streamLeader(nats);
    t.truthy(leader, 'the bucket has a stream leader');
    const killed = indexOf(nats, leader!);
    const killedAt = Date.now();
    await nats.servers[killed]!.kill();

    // Writable again once the two survivors elect a new stream leader.
    await eventually('a write after the kill', () => kv.put('after-kill', enc.encode('x')));
    const newLeader = await streamLeader(nats, [killed]);
    t.log(`stream leader ${leader} killed; ${newLeader} took over, writable after ${Date.now() - killedAt} ms`);
    t.not(newLeader, leader);
    t.deepEqual(await missing(kv, before), [], 'every write acknowledged before the kill reads back');
    const after = await putAll(kv, 'after', 50);
    t.deepEqual(await missing(kv, after), []);
    // Compare-and-set still works: the revision read is the one to update from, a stale one loses.
    const current = await kv.get('cas');
    t.is(current?.revision, casRevision, 'the CAS key keeps its revision');
    const next = await kv.update('cas', enc.encode('2'), casRevision);
    await t.throwsAsync(kv.update('cas', enc.encode('stale'), casRevision), { name: 'KvConflict' });
    t.is(dec.decode((await kv.get('cas'))!.value), '2');

    // Both survivors hold the same copy.
    const survivors = [0, 1, 2].filter((i) => i !== killed);
    const [first, second] = await Promise.all(survivors.map((i) => untilCaughtUp(nats, i, `${nats.servers[i]!.name} caught up`)));
    t.is(first!.copy.lastSeq, second!.copy.lastSeq);
    t.true(first!.copy.lastSeq >= next);

    // And the killed one, started on its old store, catches up with what it missed.
    await nats.servers[killed]!.start();
    const { copy } = await untilCaughtUp(nats, killed, `${leader} caught up after its restart`);
    t.is(copy.messages, before.size + after.size + 2);
  });
});

cluster('nats cluster - a server paused past the election timeout loses the bucket\'s leadership, and catches up once resumed', async (t) => {
  await withNatsCluster(t, async ({ nats, open }) => {
    const first = await open([0, 1, 2], 'setup');
    const before = await putAll(first, 'before', 30);
    const leader = await streamLeader(nats);
    t.truthy(leader);
    const paused = indexOf(nats, leader!);
    const others = [0, 1, 2].filter((i) => i !== paused);
    // A stopped server keeps its client sockets open and silent: a client on it would wait for
    // its ping timeout (minutes). The writer is on the two others from the start.
    const kv = await open(others, 'writer');
    await untilCaughtUp(nats, others[0]!, 'the writer\'s servers have the first writes');
    const pausedAt = Date.now();
    nats.pause(paused);

    let newLeader: string | null = null;
    await waitUntil(async () => {
      newLeader = await streamLeader(nats, [paused]);
      return newLeader !== null && newLeader !== leader;
    }, RECOVERY_MS, 'a new stream leader among the two running servers', 200);
    await eventually('a write while the old leader is paused', () => kv.put('during-pause', enc.encode('x')));
    t.log(`stream leader ${leader} paused; ${newLeader} elected, writable after ${Date.now() - pausedAt} ms`);
    const during = await putAll(kv, 'during', 30);
    // Seen on 2.9.10 while the old leader stays stopped (its routes up): some reads through the
    // adapter wait out the client's 5 s request timeout, then a retry answers. Not seen when the
    // first read comes well after the election, nor with a stopped follower. A read is a direct
    // get any replica may answer; that it reaches the stopped one is our guess, not verified.
    // Counted here and retried: never a wrong value.
    let readTimeouts = 0;
    const sample = [...before].slice(0, 6);
    for (const [key, value] of sample) {
      const entry = await eventually(`read ${key} while ${leader} is paused`, () => kv.get(key).catch((err: unknown) => {
        readTimeouts += 1;
        throw err;
      }));
      t.is(entry && dec.decode(entry.value), value);
    }
    t.log(`while paused: ${readTimeouts} timeouts before ${sample.length} reads through the adapter answered`);

    nats.resume(paused);
    const { copy, leaderCopy } = await untilCaughtUp(nats, paused, `${leader} caught up after it was resumed`);
    t.is(copy.leader, leaderCopy.leader, 'the resumed server follows the leader elected while it was stopped');
    t.is(copy.messages, before.size + during.size + 1);
    // The resumed server may have been the meta leader too: a new one is elected before a client
    // on it can open the bucket (account info comes from the meta leader).
    await nats.waitForMetaLeader(RECOVERY_MS);
    const onResumed = await eventually('the bucket opened through the resumed server', () => open([paused], 'reader-on-resumed'));
    t.deepEqual(await missing(onResumed, new Map([...before, ...during])), []);
  });
});

cluster('nats cluster - a follower restarted with its store wiped gets the whole bucket back from the other two', async (t) => {
  await withNatsCluster(t, async ({ nats, open, transports }) => {
    const kv = await open([0, 1, 2], 'writer');
    const written = await putAll(kv, 'k', 100);
    const leader = await streamLeader(nats);
    const meta = await nats.metaLeader(0);
    // A follower of the bucket, and not the meta leader when there is a choice: the point is the
    // empty disk, not an election.
    const followers = [0, 1, 2].filter((i) => nats.servers[i]!.name !== leader);
    const wiped = followers.find((i) => nats.servers[i]!.name !== meta) ?? followers[0]!;
    const { copy: beforeWipe } = await untilCaughtUp(nats, wiped, 'the follower has every write before the wipe');
    t.is(beforeWipe.messages, written.size);
    // A client of the wiped server alone, from before: its stream is the one the peers kept.
    await open([wiped], 'pinned-before-wipe');
    const pinned = transports.at(-1)!;

    await nats.wipeAndRestart(wiped);
    await nats.waitForMetaLeader(RECOVERY_MS);
    const { copy } = await untilCaughtUp(nats, wiped, `${nats.servers[wiped]!.name} re-synced from an empty store`);
    t.is(copy.messages, written.size);
    // Its clients read the bucket through it, and it takes part in new writes.
    const onWiped = await open([wiped], 'on-wiped');
    t.deepEqual(await missing(onWiped, written), []);
    const more = await putAll(onWiped, 'more', 10);
    t.deepEqual(await missing(kv, more), []);
    const { copy: last } = await untilCaughtUp(nats, wiped, 'the wiped server has the new writes');
    t.is(last.messages, written.size + more.size);
    // Not taken for a stream made anew (a lone server's lost store): the bucket opened again
    // through the wiped server has the creation time the pinned client first saw.
    await eventually('the bucket opened again through the pinned client', () => pinned.kv(BUCKET, { replicas: 3, history: 1 }));
    t.is(pinned.kvReplaced?.(), null);
    // Nor the last sequence: the other two copies kept every message it read.
    t.is(await pinned.checkKv?.(), null);
  });
});
