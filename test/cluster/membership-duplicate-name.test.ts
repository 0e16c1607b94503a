import test from 'ava';
import { createManualClock } from '../../src/actors/runtime/index.ts';
import { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import { startMembership } from '../../src/cluster/index.ts';
import type { LogLine } from '../support/recording-logger.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { flush, run } from '../support/manual-time.ts';

const HB = 1_000;
const DEAD = 5_000;

// Two processes started with the same --name: the second one's SIGTERM (leave) must not delete
// the heartbeat the first still writes, which made every peer count the live node dead.
test('membership - leaving a duplicate of a live node name keeps the live node in its peers view, and the duplicate is logged', async (t) => {
  const clock = createManualClock(0);
  const bucket = new MemoryKvStore(clock).bucket('members', { ttlMs: DEAD });
  const lines: LogLine[] = [];
  const start = (self: string, pid: string) =>
    startMembership({ bucket, self, heartbeatMs: HB, deadAfterMs: DEAD, clock, info: { pid }, log: recordingLogger(lines, { pid }) });
  const a = await start('a', '100');
  const b = await start('b', '200');
  await run(clock, 2 * HB);
  const twin = await start('a', '300');
  await run(clock, 2 * HB);
  const views: string[][] = [];
  b.onChange((live) => views.push([...live]));

  await twin.leave();
  await run(clock, 3 * HB);

  t.deepEqual(views, [], 'b never saw the live node a drop out');
  t.deepEqual(b.live(), ['a', 'b']);
  const errors = lines.filter((l) => l.level === 'error' && l.msg.includes('another process heartbeats as node "a"'));
  // Each process names the other's pid: the live node a (100) and its duplicate (300).
  t.true(errors.some((l) => l.obj['pid'] === '100' && l.obj['otherPid'] === '300'), 'the live node logs the duplicate');
  t.true(errors.some((l) => l.obj['pid'] === '300' && l.obj['otherPid'] === '100'), 'the duplicate logs the live node');
  await a.stop();
  await b.stop();
});

test('membership - a node alone under its name still deletes its heartbeat on leave', async (t) => {
  const clock = createManualClock(0);
  const bucket = new MemoryKvStore(clock).bucket('members', { ttlMs: DEAD });
  const lines: LogLine[] = [];
  const start = (self: string) => startMembership({ bucket, self, heartbeatMs: HB, deadAfterMs: DEAD, clock, info: { pid: '1' }, log: recordingLogger(lines) });
  const a = await start('a');
  const b = await start('b');
  await run(clock, 2 * HB);
  await a.leave();
  await flush();
  t.deepEqual(b.live(), ['b'], 'dropped at once, not after deadAfterMs');
  t.deepEqual(lines.filter((l) => l.level === 'error'), []);
  await b.stop();
});

// A restart under the same name (the old process gone, or killed without leaving) is no duplicate:
// the new process writes its heartbeat before it watches, so it never sees the old one's.
test('membership - a node restarted under its name, after a kill without leave, logs no duplicate and deletes its heartbeat on leave', async (t) => {
  const clock = createManualClock(0);
  const bucket = new MemoryKvStore(clock).bucket('members', { ttlMs: DEAD });
  const lines: LogLine[] = [];
  const start = (self: string, pid: string) => startMembership({ bucket, self, heartbeatMs: HB, deadAfterMs: DEAD, clock, info: { pid }, log: recordingLogger(lines, { pid }) });
  const old = await start('a', '100');
  const b = await start('b', '200');
  await run(clock, 2 * HB);
  await old.stop(); // killed: its heartbeat stays in the bucket
  const again = await start('a', '300');
  await run(clock, 2 * HB);
  t.deepEqual(lines.filter((l) => l.level === 'error'), []);
  await again.leave();
  await flush();
  t.deepEqual(b.live(), ['b']);
  await b.stop();
});
