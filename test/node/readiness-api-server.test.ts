// /readyz after the first sync: a node whose API server has been out of reach for a while is not
// ready (its caches go stale, its writes fail), and says why; a watch restart is no reason.
import test from 'ava';
import type { InformerStatus } from '../../src/adapters/kube/index.ts';
import { API_SERVER_DOWN_NOT_READY_MS, apiServerUnreachable } from '../../src/node/readiness.ts';

const T0 = 1_000_000;
const informer = (o: Partial<InformerStatus>): InformerStatus => ({ resource: 'BareMetalHost', phase: 'watching', synced: true, errors: 0, restarts: 0, lastError: null, downSince: null, ...o });

test('readiness - watching informers, or one failing only briefly, keep the node ready', (t) => {
  t.is(apiServerUnreachable([informer({}), informer({ resource: 'Secret' })], T0), null);
  t.is(apiServerUnreachable([informer({ phase: 'backoff', downSince: T0 - 5_000, lastError: 'watch ended' })], T0), null);
});

test('readiness - an informer down for the limit makes the node not ready, naming the resource, for how long and why', (t) => {
  const reason = apiServerUnreachable([informer({}), informer({ resource: 'Secret', phase: 'backoff', downSince: T0 - API_SERVER_DOWN_NOT_READY_MS, lastError: 'watching secrets: connection refused: nothing listens at https://10.0.0.1:6443 (ECONNREFUSED)' })], T0);
  t.is(reason, 'the Kubernetes API server has not answered the Secret watch for 30 s: watching secrets: connection refused: nothing listens at https://10.0.0.1:6443 (ECONNREFUSED)');
});
