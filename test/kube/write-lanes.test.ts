import test from 'ava';
import { WriteLanes } from '../../src/adapters/kube/write-lanes.ts';
import { deferred } from '../support/wait.ts';

test('write lanes - one write in flight per object, in order; other objects run beside it', async (t) => {
  const lanes = new WriteLanes();
  const gate = deferred();
  const log: string[] = [];
  const a1 = lanes.run('a', async () => { log.push('a1 start'); await gate.promise; log.push('a1 end'); });
  const a2 = lanes.run('a', async () => { log.push('a2'); });
  const b1 = lanes.run('b', async () => { log.push('b1'); });
  await b1;
  t.deepEqual(log, ['a1 start', 'b1']);
  gate.resolve();
  await Promise.all([a1, a2]);
  t.deepEqual(log, ['a1 start', 'b1', 'a1 end', 'a2']);
  t.is(lanes.busy, 0);
});

test('write lanes - statuses asked for while a write is in flight collapse into one write of the newest', async (t) => {
  const lanes = new WriteLanes();
  const gate = deferred();
  const started = deferred();
  const written: number[] = [];
  const write = async (n: number) => {
    if (n === 1) {
      started.resolve();
      await gate.promise;
    }
    written.push(n);
  };
  const first = lanes.coalesce('h', 1, write);
  await started.promise;
  const rest = [2, 3, 4].map((n) => lanes.coalesce('h', n, write));
  gate.resolve();
  await Promise.all([first, ...rest]);
  t.deepEqual(written, [1, 4]);
});

test('write lanes - every caller folded into a write learns its failure', async (t) => {
  const lanes = new WriteLanes();
  const gate = deferred();
  const blocker = lanes.run('h', () => gate.promise);
  const a = lanes.coalesce('h', 'a', async () => { throw new Error('refused'); });
  const b = lanes.coalesce('h', 'b', async () => { throw new Error('refused'); });
  gate.resolve();
  await blocker;
  await t.throwsAsync(a, { message: 'refused' });
  await t.throwsAsync(b, { message: 'refused' });
});

test('write lanes - statuses asked for in one turn are one write', async (t) => {
  const lanes = new WriteLanes();
  const written: number[] = [];
  await Promise.all([1, 2, 3].map((n) => lanes.coalesce('h', n, async (v) => { written.push(v); })));
  t.deepEqual(written, [3]);
});
