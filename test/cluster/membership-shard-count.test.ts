import test from 'ava';
import { createManualClock } from '../../src/actors/runtime/index.ts';
import { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import { Heartbeat, ShardCountMismatch, startMembership } from '../../src/cluster/index.ts';
import type { KvBucket } from '../../src/ports/index.ts';
import type { LogLine } from '../support/recording-logger.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { wrappedBucket } from '../support/wrapped-bucket.ts';
import { flush, run } from '../support/manual-time.ts';

const HB = 1_000;
const DEAD = 5_000;

function fixture() {
  const clock = createManualClock(0);
  const bucket = new MemoryKvStore(clock).bucket('members', { ttlMs: DEAD });
  const lines: LogLine[] = [];
  const start = (self: string, shardCount: number | undefined, on: KvBucket = bucket) =>
    startMembership({ bucket: on, self, heartbeatMs: HB, deadAfterMs: DEAD, clock, info: { pid: self }, log: recordingLogger(lines, { node: self }), ...(shardCount === undefined ? {} : { shardCount }) });
  // A heartbeat as a node of an older version writes it: no shards field, maybe info.shards.
  const putOld = (node: string, info: Record<string, string>) =>
    bucket.put(`node.${node}`, new TextEncoder().encode(JSON.stringify({ node, at: clock.now(), info })));
  return { clock, bucket, lines, start, putOld };
}

test('membership - a node of another shard count refuses to start, naming both counts and the nodes, and writes no heartbeat', async (t) => {
  const { clock, bucket, lines, start } = fixture();
  const a = await start('a', 256);
  const b = await start('b', 256);
  await run(clock, 2 * HB);
  const views: string[][] = [];
  a.onChange((live) => views.push([...live]));

  const refused = await t.throwsAsync(start('c', 16), { instanceOf: ShardCountMismatch });
  t.is(refused?.message, "shard count 16 differs from the cluster's 256 (nodes a, b); every node of a cluster must run the same --shards/METALFLEET_SHARDS (to change it, stop every node of the cluster, then start them all with the new count)");
  t.deepEqual([...(refused?.others ?? [])], [[256, ['a', 'b']]]);
  await run(clock, 2 * HB);
  t.is(await bucket.get('node.c'), null, 'the refused node never heartbeat');
  t.deepEqual(views, [], 'a never counted c in');
  t.deepEqual(a.live(), ['a', 'b']);
  t.deepEqual(lines.filter((l) => l.level === 'error'), []);
  await a.stop();
  await b.stop();
});

test('membership - a node of the same shard count joins, and its heartbeat names the count', async (t) => {
  const { clock, bucket, lines, start } = fixture();
  const a = await start('a', 64);
  const c = await start('c', 64);
  await run(clock, 2 * HB);
  t.deepEqual(a.live(), ['a', 'c']);
  t.deepEqual(c.live(), ['a', 'c']);
  const entry = await bucket.get('node.c');
  t.is(Heartbeat.parse(JSON.parse(new TextDecoder().decode(entry!.value))).shards, 64);
  t.deepEqual(lines.filter((l) => l.level === 'error'), []);
  await a.stop();
  await c.stop();
});

test('membership - the counts of several nodes are all named, and a node of an older version is judged by info.shards', async (t) => {
  const { clock, start, putOld } = fixture();
  const a = await start('a', 256);
  await putOld('b', { pid: '2', shards: '256' });
  await putOld('d', { pid: '4', shards: '32' });
  await putOld('e', { pid: '5' }); // older still: no count at all, not judged
  await flush();
  const refused = await t.throwsAsync(start('c', 16), { instanceOf: ShardCountMismatch });
  t.regex(refused?.message ?? '', /^shard count 16 differs from the cluster's 256 \(nodes a, b\), 32 \(node d\); /);
  await run(clock, HB);
  await a.stop();
});

test('membership - a heartbeat of no count, or one left under this node\'s own name, does not refuse the start', async (t) => {
  const { clock, start, putOld } = fixture();
  await putOld('old', { pid: '1' });
  await putOld('c', { pid: '2', shards: '256' }); // an earlier process of c, killed
  const c = await start('c', 16);
  await run(clock, 2 * HB);
  t.deepEqual(c.live(), ['c', 'old']);
  await c.stop();
});

// Two nodes of different counts starting at the same moment: each checks before the other's first
// heartbeat. The one whose watch then finds the other refuses, and takes its heartbeat back.
test('membership - a node of another count that heartbeats between the check and the first heartbeat refuses the start too', async (t) => {
  const { clock, bucket, lines, start } = fixture();
  let other: Awaited<ReturnType<typeof start>> | null = null;
  const racing = wrappedBucket(bucket, {
    put: async (key, value) => {
      // c's first heartbeat: a meanwhile wrote its own, after c found the bucket empty.
      if (key === 'node.c' && other === null) other = await start('a', 256);
      return bucket.put(key, value);
    },
  });
  const refused = await t.throwsAsync(start('c', 16, racing), { instanceOf: ShardCountMismatch });
  t.regex(refused?.message ?? '', /^shard count 16 differs from the cluster's 256 \(node a\); /);
  t.is(await bucket.get('node.c'), null, 'the refused node deleted its heartbeat');
  await run(clock, 2 * HB);
  t.not(other, null);
  t.deepEqual(other!.live(), ['a']);
  // a saw c join before c took it back: logged, and never counted in.
  t.true(lines.some((l) => l.level === 'error' && l.obj['node'] === 'a' && l.obj['peer'] === 'c' && l.msg.startsWith('node "c" runs with shard count 16, this node with 256')));
  await other!.stop();
});

test('membership - a live node logs a joiner of another count (an older version that cannot refuse) once, and leaves it out of its members', async (t) => {
  const { clock, lines, start, putOld } = fixture();
  const a = await start('a', 256);
  const b = await start('b', 256);
  await run(clock, 2 * HB);
  const views: string[][] = [];
  a.onChange((live) => views.push([...live]));
  for (let i = 0; i < 4; i++) {
    await putOld('c', { pid: '300', shards: '16' });
    await run(clock, HB);
  }
  t.deepEqual(views, [], 'a never counted c in (no shard handed to it)');
  t.deepEqual(a.live(), ['a', 'b']);
  const errors = lines.filter((l) => l.level === 'error');
  t.is(errors.filter((l) => l.obj['node'] === 'a').length, 1, 'logged once while it keeps beating');
  t.like(errors.find((l) => l.obj['node'] === 'a')?.obj, { peer: 'c', peerShards: 16, shards: 256, peerPid: '300' });
  t.regex(errors[0]?.msg ?? '', /^node "c" runs with shard count 16, this node with 256: every node of a cluster must run the same --shards\/METALFLEET_SHARDS/);
  // Restarted with the right count: counted in, and no more errors.
  await putOld('c', { pid: '301', shards: '256' });
  await run(clock, HB);
  t.deepEqual(a.live(), ['a', 'b', 'c']);
  t.is(lines.filter((l) => l.level === 'error').length, errors.length);
  await a.stop();
  await b.stop();
});

// The count is changed by stopping every node and starting them all with the new one: a stopped
// node's heartbeat is gone at once; a killed one's refuses the new count until the bucket TTL drops it.
test('membership - a whole cluster restarted with another count starts; a killed node of the old count refuses it until its heartbeat expires', async (t) => {
  const { clock, start } = fixture();
  const a = await start('a', 256);
  const b = await start('b', 256);
  await run(clock, 2 * HB);
  await a.leave();
  await b.stop(); // killed: its heartbeat stays until the bucket TTL
  await flush();
  const early = await t.throwsAsync(start('a', 16), { instanceOf: ShardCountMismatch });
  t.regex(early?.message ?? '', /^shard count 16 differs from the cluster's 256 \(node b\); /);
  await run(clock, DEAD + HB);
  const a2 = await start('a', 16);
  const b2 = await start('b', 16);
  await run(clock, 2 * HB);
  t.deepEqual(a2.live(), ['a', 'b']);
  await a2.stop();
  await b2.stop();
});

test('membership - without a shard count of its own (no check asked), a node counts every peer in', async (t) => {
  const { clock, start } = fixture();
  const a = await start('a', 256);
  const x = await start('x', undefined);
  await run(clock, 2 * HB);
  t.deepEqual(x.live(), ['a', 'x']);
  await a.stop();
  await x.stop();
});
