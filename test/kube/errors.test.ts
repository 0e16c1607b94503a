import test from 'ava';
import { ApiException } from '@kubernetes/client-node';
import { KubeCallError, retryableStatus, storeError, toKubeCallError } from '../../src/adapters/kube/errors.ts';

const status = (code: number, reason: string, message: string) => JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });

test('errors - an API error names the call, the status and the server message, not the raw exception', (t) => {
  const raw = new ApiException(409, 'Unknown API Status Code!', status(409, 'Conflict', 'Operation cannot be fulfilled on baremetalhosts.metal3.io "h1": the object has been modified'), { authorization: 'Bearer t0ken' });
  const e = toKubeCallError('writing the status of BareMetalHost lab/h1', raw);
  t.true(e instanceof KubeCallError);
  t.true(e.conflict);
  t.is(e.message, 'writing the status of BareMetalHost lab/h1: Conflict (HTTP 409): Operation cannot be fulfilled on baremetalhosts.metal3.io "h1": the object has been modified');
  t.false(e.message.includes('t0ken'));
});

test('errors - no answer at all (refused, reset) is retryable, and names the cause and the address', (t) => {
  const refused = Object.assign(new Error('request to http://127.0.0.1:1/ failed, reason: connect ECONNREFUSED'), { name: 'FetchError', code: 'ECONNREFUSED' });
  const e = storeError('patching BareMetalHost lab/h1', refused);
  t.true(e.retryable);
  t.is(e.message, 'patching BareMetalHost lab/h1: connection refused: nothing listens at http://127.0.0.1:1 (ECONNREFUSED); is the API server running, and is the kubeconfig\'s server address right?');
});

test('errors - retryable: conflicts, throttling and server errors; not: missing, invalid, forbidden', (t) => {
  t.deepEqual([409, 429, 500, 503, 504].map(retryableStatus), [true, true, true, true, true]);
  t.deepEqual([400, 403, 404, 415, 422].map(retryableStatus), [false, false, false, false, false]);
});
