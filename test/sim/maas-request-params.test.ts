// Where MAAS finds a request's op and parameters. Django fills request.POST from the body for a
// POST only (piston3's coerce_put_post does it for a PUT too); for GET and DELETE it is an empty
// QueryDict, so op dispatch (support.py: `request.GET.get("op") or request.POST.get("op")`) and
// a DELETE's parameters (files.py delete: `get_mandatory_param(request.GET, "filename")`) come
// from the query string alone. A body on those methods is ignored.
import http from 'node:http';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { MaasSim } from '../../src/sim/maas/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { call, idOf } from '../support/maas-http.ts';

async function started(t: ExecutionContext): Promise<MaasSim> {
  const sim = await startMaasSim({ deployMs: 0, releaseMs: 0 });
  t.teardown(() => sim.stop());
  return sim;
}

function plaintext(key: string): string {
  const [ck = '', tk = '', ts = ''] = key.split(':');
  return `OAuth oauth_version="1.0", oauth_signature_method="PLAINTEXT", oauth_consumer_key="${ck}", oauth_token="${tk}", oauth_signature="%26${ts}", oauth_nonce="${Math.random().toString(36).slice(2)}", oauth_timestamp="${Math.floor(Date.now() / 1000)}"`;
}

/** POST files/ with a multipart body: filename and one file. */
function upload(sim: MaasSim, filename: string, content: string): Promise<number> {
  const b = 'request-params-boundary';
  const body = Buffer.from(
    `--${b}\r\nContent-Disposition: form-data; name="filename"\r\n\r\n${filename}\r\n`
    + `--${b}\r\nContent-Disposition: form-data; name="file"; filename="file"\r\nContent-Type: application/octet-stream\r\n\r\n${content}\r\n--${b}--\r\n`,
  );
  const headers = { Authorization: plaintext(sim.adminKey), 'Content-Type': `multipart/form-data; boundary=${b}`, 'Content-Length': String(body.length) };
  return new Promise((resolve, reject) => {
    const req = http.request(`${sim.url}/api/2.0/files/`, { method: 'POST', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('maas request params - a GET body carries no op: GET events/ with op=query in the body is an unrecognised signature', async (t) => {
  const sim = await started(t);
  const r = await call(sim, 'GET', 'events/', [['op', 'query']]);
  t.is(r.status, 400);
  t.is(r.text, 'Unrecognised signature: method=GET op=None');
  // In the query string it is the op.
  t.is((await call(sim, 'GET', 'events/?op=query')).status, 200);
});

test('maas request params - a DELETE body carries no op: DELETE machines/{id}/ with op=release in the body deletes the machine', async (t) => {
  const sim = await started(t);
  const id = idOf(sim, 'node-01');
  const r = await call(sim, 'DELETE', `machines/${id}/`, [['op', 'release']]);
  t.is(r.status, 204);
  t.is(sim.machine(id), undefined);
});

test('maas request params - a DELETE reads the query string only: files/ with filename in the body is "No provided filename!" and keeps the file', async (t) => {
  const sim = await started(t);
  t.is(await upload(sim, 'kept', 'data'), 201);
  const r = await call(sim, 'DELETE', 'files/', [['filename', 'kept']]);
  t.is(r.status, 400);
  t.is(r.text, 'No provided filename!');
  t.deepEqual(sim.files().map((f) => f.filename), ['kept']);
  t.is((await call(sim, 'DELETE', 'files/?filename=kept')).status, 204);
  t.deepEqual(sim.files(), []);
});

test('maas request params - a PUT body still carries op and parameters, as a POST body does (coerce_put_post)', async (t) => {
  const sim = await started(t);
  const id = idOf(sim, 'node-02');
  const r = await call(sim, 'PUT', `machines/${id}/`, [['swap_size', '1G']]);
  t.is(r.status, 200);
  t.is((JSON.parse(r.text) as { swap_size: number }).swap_size, 1000 ** 3);
  const posted = await call(sim, 'POST', 'machines/', [['op', 'allocate'], ['dry_run', 'true']]);
  t.is(posted.status, 200);
});
