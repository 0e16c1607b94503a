// One RetryPolicy for every retry loop (issue 29.6): the delays it gives, and the policies it refuses.
import test from 'ava';
import { nextDelay, RetryPolicy } from '../../src/api/index.ts';

const policy = (input: Partial<RetryPolicy> = {}): RetryPolicy => RetryPolicy.parse({ initialMs: 100, maxMs: 1_000, ...input });
const fixed = (x: number) => () => x;

test('retry policy - without jitter the delay doubles from initialMs and stops at maxMs', (t) => {
  const p = policy();
  t.deepEqual([1, 2, 3, 4, 5, 6, 50].map((n) => nextDelay(p, n, fixed(0.7))), [100, 200, 400, 800, 1_000, 1_000, 1_000]);
});

test('retry policy - factor sets the growth, and a factor of 1 is a fixed interval', (t) => {
  t.deepEqual([1, 2, 3].map((n) => nextDelay(policy({ factor: 3, maxMs: 10_000 }), n, fixed(0))), [100, 300, 900]);
  t.deepEqual([1, 2, 9].map((n) => nextDelay(policy({ factor: 1 }), n, fixed(0))), [100, 100, 100]);
});

test('retry policy - attempts below 1 and huge attempts stay within [initialMs, maxMs]', (t) => {
  const p = policy();
  t.is(nextDelay(p, 0, fixed(0)), 100);
  t.is(nextDelay(p, -3, fixed(0)), 100);
  t.is(nextDelay(p, 100_000, fixed(0)), 1_000);
  t.is(nextDelay(policy({ initialMs: 0, maxMs: 0 }), 100_000, fixed(1)), 0, 'a zero policy never becomes NaN');
});

test('retry policy - equal jitter keeps half the step and randomises the other half', (t) => {
  const p = policy({ jitter: 'equal' });
  t.is(nextDelay(p, 2, fixed(0)), 100);
  t.is(nextDelay(p, 2, fixed(0.5)), 150);
  t.is(nextDelay(p, 2, fixed(1)), 200);
  t.is(nextDelay(p, 9, fixed(1)), 1_000, 'the cap applies before the jitter');
});

test('retry policy - full jitter is anywhere from 0 to the step', (t) => {
  const p = policy({ jitter: 'full' });
  t.is(nextDelay(p, 3, fixed(0)), 0);
  t.is(nextDelay(p, 3, fixed(0.25)), 100);
  t.is(nextDelay(p, 3, fixed(1)), 400);
});

test('retry policy - a random outside [0, 1] is clamped, never a negative or overlong wait', (t) => {
  const p = policy({ jitter: 'full' });
  t.is(nextDelay(p, 1, fixed(-5)), 0);
  t.is(nextDelay(p, 1, fixed(7)), 100);
  t.is(nextDelay(p, 1, fixed(Number.NaN)), 0);
});

test('retry policy - factor and jitter default to doubling without jitter', (t) => {
  const p = RetryPolicy.parse({ initialMs: 5, maxMs: 50 });
  t.is(p.factor, 2);
  t.is(p.jitter, 'none');
});

function refusal(input: unknown): { path: string; message: string } {
  const result = RetryPolicy.safeParse(input);
  if (result.success) throw new Error(`accepted ${JSON.stringify(input)}`);
  const issue = result.error.issues[0];
  return { path: issue?.path.join('.') ?? '', message: issue?.message ?? '' };
}

test('retry policy - a bad policy is refused with a message naming the field', (t) => {
  t.deepEqual(refusal({ initialMs: 500, maxMs: 100 }), { path: 'maxMs', message: 'maxMs must be at least initialMs' });
  t.like(refusal({ initialMs: 100, maxMs: 500, factor: 0.5 }), { path: 'factor' });
  t.regex(refusal({ initialMs: 100, maxMs: 500, factor: 0.5 }).message, /^factor /);
  t.like(refusal({ initialMs: -1, maxMs: 500 }), { path: 'initialMs', message: 'initialMs must be 0 or more' });
  t.like(refusal({ initialMs: 1, maxMs: -1 }), { path: 'maxMs' });
  t.like(refusal({ initialMs: 1, maxMs: 10, jitter: 'half' }), { path: 'jitter' });
  t.like(refusal({ initialMs: 'soon', maxMs: 10 }), { path: 'initialMs', message: 'initialMs must be a number of milliseconds' });
  t.like(refusal({ initialMs: 1, maxMs: Number.POSITIVE_INFINITY }), { path: 'maxMs' });
});
