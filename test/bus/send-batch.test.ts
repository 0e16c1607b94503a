// The sends of one event-loop turn are made together at its end, in the order they were asked.
import test from 'ava';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sendBatch } from '../../src/bus/send-batch.ts';

test('send batch - sends asked during a turn are made at its end, together and in order', async (t) => {
  const made: string[] = [];
  const batch = sendBatch(() => t.fail('no send threw'));
  const first = batch.later(async () => {
    made.push('request 1');
    return 1;
  });
  batch.post(() => made.push('reply'));
  const second = batch.later(async () => {
    made.push('request 2');
    return 2;
  });
  t.deepEqual(made, [], 'nothing is sent while the turn runs');
  await nextTurn();
  t.deepEqual(made, ['request 1', 'reply', 'request 2']);
  t.deepEqual(await Promise.all([first, second]), [1, 2]);
});

test('send batch - flush makes the held sends at once, and the end of the turn does not repeat them', async (t) => {
  const made: string[] = [];
  const batch = sendBatch(() => t.fail('no send threw'));
  batch.post(() => made.push('a'));
  batch.post(() => made.push('b'));
  batch.flush();
  t.deepEqual(made, ['a', 'b']);
  await nextTurn();
  t.deepEqual(made, ['a', 'b']);
});

test('send batch - a failing send fails alone: a request rejects, a post goes to onError, the rest are made', async (t) => {
  const errors: unknown[] = [];
  const made: string[] = [];
  const batch = sendBatch((error) => errors.push(error));
  const throwing = batch.later<number>(() => {
    throw new Error('cannot publish');
  });
  const rejecting = batch.later(() => Promise.reject(new Error('no reply')));
  batch.post(() => {
    throw new Error('reply failed');
  });
  batch.post(() => made.push('after'));
  await t.throwsAsync(throwing, { message: 'cannot publish' });
  await t.throwsAsync(rejecting, { message: 'no reply' });
  t.deepEqual(made, ['after']);
  t.deepEqual(errors.map((e) => (e as Error).message), ['reply failed']);
});
