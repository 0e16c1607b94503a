// Creation and deletion timestamps as Kubernetes writes them: RFC 3339 in whole seconds, UTC.
import test from 'ava';
import { kubeTimestamp } from '../../src/adapters/store/kv-record.ts';

test('store kube timestamp - milliseconds are cut, not rounded, at the second', (t) => {
  t.is(kubeTimestamp(Date.UTC(2026, 11, 5, 11, 57, 16, 965)), '2026-12-05T11:57:16Z');
  t.is(kubeTimestamp(Date.UTC(1999, 0, 1, 0, 0, 0, 0)), '1999-01-01T00:00:00Z');
  t.is(kubeTimestamp(0), '1970-01-01T00:00:00Z');
});

test('store kube timestamp - a year past 9999 keeps its extended form, in whole seconds', (t) => {
  t.is(kubeTimestamp(Date.UTC(10000, 0, 1, 0, 0, 1, 500)), '+010000-01-01T00:00:01Z');
});
