// The status times as text (stamps.ts): the same text Date writes, and one string for one instant.
import test from 'ava';
import fc from 'fast-check';
import { isoStamp, k8sTime } from '../../src/machines/bmh/stamps.ts';

test('isoStamp writes what Date.toISOString writes, for any instant and any order of asks', (t) => {
  fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 4_102_444_800_000 }), { minLength: 1, maxLength: 20 }), (times) => {
    for (const ms of times) if (isoStamp(ms) !== new Date(ms).toISOString()) return false;
    return true;
  }));
  t.pass();
});

test('k8sTime writes whole seconds in RFC 3339, for any instant and any order of asks', (t) => {
  fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 4_102_444_800_000 }), { minLength: 1, maxLength: 20 }), (times) => {
    for (const ms of times) if (k8sTime(ms) !== `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`) return false;
    return true;
  }));
  t.is(k8sTime(Date.UTC(2026, 0, 2, 3, 4, 5, 999)), '2026-01-02T03:04:05Z');
});

test('a kept text goes out only for its own instant: the millisecond, or the second for Kubernetes', (t) => {
  const ms = Date.UTC(2026, 11, 5, 2, 0, 0, 123);
  t.is(isoStamp(ms), '2026-12-05T02:00:00.123Z');
  t.is(isoStamp(ms), '2026-12-05T02:00:00.123Z');
  t.is(isoStamp(ms + 1), '2026-12-05T02:00:00.124Z');
  t.is(k8sTime(ms), '2026-12-05T02:00:00Z');
  t.is(k8sTime(ms + 876), '2026-12-05T02:00:00Z');
  t.is(k8sTime(ms + 877), '2026-12-05T02:00:01Z');
  t.is(k8sTime(ms - 124), '2026-12-05T01:59:59Z');
});
