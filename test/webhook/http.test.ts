// The HTTP side of the webhook: what is not an AdmissionReview, unknown paths and methods, the body
// limit, and the health probe. Every refusal is a metav1.Status the API server can quote.
import https from 'node:https';
import test from 'ava';
import { DEFAULT_MAX_BODY_BYTES } from '../../src/adapters/kube/webhook/index.ts';
import { admissionReview, type Answer, call, fileTls, serve } from './support.ts';

const tls = fileTls();

type StatusBody = { kind: string; apiVersion: string; status: string; message: string; reason: string; code: number };

function statusOf(answer: Answer): StatusBody {
  return answer.json<StatusBody>();
}

const host = {
  apiVersion: 'metal3.io/v1alpha1',
  kind: 'BareMetalHost',
  metadata: { name: 'worker-0', namespace: 'metal3' },
  spec: { online: true, bmc: { address: 'ipmi://192.0.2.10', credentialsName: 'c' } },
};

test('webhook http - GET /healthz is 200', async (t) => {
  const { server } = await serve(t, tls.files);
  const answer = await call(server.url, tls.pki.ca, { method: 'GET', path: '/healthz' });
  t.is(answer.status, 200);
  t.is(answer.text, 'ok\n');
});

test('webhook http - HEAD /healthz is 200 with no body, as an HTTP probe may send it', async (t) => {
  const { server } = await serve(t, tls.files);
  const answer = await call(server.url, tls.pki.ca, { method: 'HEAD', path: '/healthz' });
  t.is(answer.status, 200);
  t.is(answer.text, '');
});

test('webhook http - malformed JSON is 400 without quoting the body', async (t) => {
  const { server } = await serve(t, tls.files);
  const answer = await call(server.url, tls.pki.ca, { body: '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"password":"hunter2-xyz"' });
  t.is(answer.status, 400);
  t.is(answer.headers['content-type'], 'application/json');
  t.deepEqual(statusOf(answer), {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: 'body: not valid JSON; expected an admission.k8s.io/v1 AdmissionReview', reason: 'BadRequest', code: 400,
  } as unknown as StatusBody);
  t.false(answer.text.includes('hunter2-xyz'));
});

test('webhook http - an empty body is 400', async (t) => {
  const { server } = await serve(t, tls.files);
  const answer = await call(server.url, tls.pki.ca, { body: '' });
  t.is(answer.status, 400);
  t.is(statusOf(answer).message, 'body: empty; expected an admission.k8s.io/v1 AdmissionReview');
});

test('webhook http - JSON that is not an AdmissionReview is 400 naming the fields', async (t) => {
  const { server } = await serve(t, tls.files);
  const cases: Array<[unknown, RegExp]> = [
    [host, /^body: not an admission\.k8s\.io\/v1 AdmissionReview: apiVersion: expected "admission\.k8s\.io\/v1" \(list v1 in the webhook configuration's admissionReviewVersions\); kind: expected "AdmissionReview"; request: /],
    [[1, 2], /^body: not an admission\.k8s\.io\/v1 AdmissionReview: \(body\): Invalid input: expected object, received array$/],
    [{ ...admissionReview('CREATE', host), apiVersion: 'admission.k8s.io/v1beta1' }, /apiVersion: expected "admission\.k8s\.io\/v1" \(list v1 in the webhook configuration's admissionReviewVersions\)$/],
    [{ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }, /: request: Invalid input: expected object, received undefined$/],
    [{ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'x', allowed: true } }, /: request: /],
  ];
  for (const [body, message] of cases) {
    const answer = await call(server.url, tls.pki.ca, { body: JSON.stringify(body) });
    t.is(answer.status, 400, answer.text);
    t.like(statusOf(answer), { kind: 'Status', reason: 'BadRequest', code: 400 });
    t.regex(statusOf(answer).message, message);
  }
});

test('webhook http - a review missing what its operation needs is 400, not a silent allow', async (t) => {
  const { server } = await serve(t, tls.files);
  const noUid = admissionReview('CREATE', host);
  delete (noUid.request as Record<string, unknown>).uid;
  const noObject = admissionReview('CREATE', null);
  const noOld = admissionReview('UPDATE', host, null);
  const badOp = admissionReview('CREATE', host);
  (badOp.request as Record<string, unknown>).operation = 'PATCH';
  const arrayObject = admissionReview('CREATE', host);
  (arrayObject.request as Record<string, unknown>).object = [host];
  const expected: Array<[Record<string, unknown>, string]> = [
    [noUid, 'request.uid: Invalid input: expected string, received undefined'],
    [noObject, 'request.object: required for CREATE'],
    [noOld, 'request.oldObject: required for UPDATE'],
    [badOp, 'request.operation: Invalid option: expected one of "CREATE"|"UPDATE"|"DELETE"|"CONNECT"'],
    [arrayObject, 'request.object: expected a Kubernetes object'],
  ];
  for (const [body, field] of expected) {
    const answer = await call(server.url, tls.pki.ca, { body: JSON.stringify(body) });
    t.is(answer.status, 400);
    t.is(statusOf(answer).message, `body: not an admission.k8s.io/v1 AdmissionReview: ${field}`);
  }
});

test('webhook http - an unknown path is 404 naming the routes', async (t) => {
  const { server } = await serve(t, tls.files);
  const answer = await call(server.url, tls.pki.ca, { path: '/convert', body: JSON.stringify(admissionReview('CREATE', host)) });
  t.is(answer.status, 404);
  t.like(statusOf(answer), { reason: 'NotFound', code: 404, message: 'no route "/convert"; this webhook serves /healthz, /validate, /mutate' });
  t.is((await call(server.url, tls.pki.ca, { method: 'GET', path: '/' })).status, 404);
});

test('webhook http - a wrong method is 405 with Allow', async (t) => {
  const { server } = await serve(t, tls.files);
  const get = await call(server.url, tls.pki.ca, { method: 'GET', path: '/validate' });
  t.is(get.status, 405);
  t.is(get.headers.allow, 'POST');
  t.like(statusOf(get), { reason: 'MethodNotAllowed', message: 'method GET not allowed on /validate; use POST' });
  const post = await call(server.url, tls.pki.ca, { method: 'POST', path: '/healthz', body: '{}' });
  t.is(post.status, 405);
  t.is(post.headers.allow, 'GET, HEAD');
  t.is((await call(server.url, tls.pki.ca, { method: 'PUT', path: '/validate', body: '{}' })).status, 405);
});

// Sends the headers, then `chunks` chunks while no answer has come; resolves with the answer as soon
// as it comes, whatever is left unsent.
function oversized(url: string, ca: Buffer, headers: Record<string, string>, chunk: Buffer, chunks: number): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = https.request(`${url}/validate`, { method: 'POST', ca, agent: false, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8'), headers: res.headers });
        req.destroy();
      });
    });
    // Once answered, the server may close while this side still writes: that is expected.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    let sent = 0;
    const write = (): void => {
      while (!answered && sent < chunks) {
        sent++;
        if (!req.write(chunk)) {
          req.once('drain', write);
          return;
        }
      }
    };
    req.flushHeaders();
    write();
  });
}

test('webhook http - a declared body over 7 MiB is 413 before it is read', async (t) => {
  const { server } = await serve(t, tls.files);
  t.is(DEFAULT_MAX_BODY_BYTES, 7 * 1024 * 1024);
  const answer = await oversized(server.url, tls.pki.ca, { 'content-length': String(DEFAULT_MAX_BODY_BYTES + 1) }, Buffer.alloc(1024, 0x20), 1);
  t.is(answer.status, 413);
  t.is(answer.headers.connection, 'close');
  t.like(JSON.parse(answer.text), { reason: 'RequestEntityTooLarge', code: 413, message: 'body: larger than 7 MiB' });
});

test('webhook http - a streamed body over the limit is 413 once it passes the limit', async (t) => {
  const { server } = await serve(t, tls.files, { maxBodyBytes: 64 * 1024 });
  // Chunked, so the size is known only as it arrives; 4 KiB at a time, up to 1 MiB.
  const answer = await oversized(server.url, tls.pki.ca, { 'transfer-encoding': 'chunked' }, Buffer.alloc(4096, 0x20), 256);
  t.is(answer.status, 413);
  t.like(JSON.parse(answer.text), { code: 413, message: 'body: larger than 65536 bytes' });
  // A body at the limit is read: here it is all spaces, so not JSON.
  const atLimit = await call(server.url, tls.pki.ca, { body: Buffer.alloc(64 * 1024, 0x20) });
  t.is(atLimit.status, 400);
});

test('webhook http - keeps serving after refusals on the same connection', async (t) => {
  const { server } = await serve(t, tls.files);
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: tls.pki.ca });
  t.teardown(() => agent.destroy());
  const send = (path: string, body: string) => new Promise<number>((resolve, reject) => {
    const req = https.request(`${server.url}${path}`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
  t.deepEqual([
    await send('/validate', 'nope'),
    await send('/nowhere', '{}'),
    await send('/validate', JSON.stringify(admissionReview('CREATE', host))),
  ], [400, 404, 200]);
});

test('webhook http - a client gone mid-body does not disturb the next review', async (t) => {
  const { server, log } = await serve(t, tls.files);
  await new Promise<void>((resolve) => {
    const req = https.request(`${server.url}/validate`, { method: 'POST', ca: tls.pki.ca, agent: false, headers: { 'content-length': '1000' } });
    req.on('error', () => resolve());
    req.on('close', () => resolve());
    req.write('{"apiVersion":', () => req.destroy());
  });
  const answer = await call(server.url, tls.pki.ca, { body: JSON.stringify(admissionReview('CREATE', host)) });
  t.is(answer.status, 200);
  t.false(log.lines.some((l) => l.level === 'error'));
});
