// files/ on the MAAS simulator over the real wire, as MAAS's FilesHandler, AnonFilesHandler and
// FileHandler answer (src/maasserver/api/files.py, and the cases of its
// api/tests/test_filestorage.py): put by multipart, get by name and by key, list with a prefix,
// read as JSON with base64 content, delete; each user sees only their own files.
import http from 'node:http';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import type { MaasSim } from '../../src/sim/maas/index.ts';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

interface Upload {
  readonly name: string;
  readonly content: Buffer;
}

function plaintext(key: string): string {
  const [ck = '', tk = '', ts = ''] = key.split(':');
  return `OAuth realm="MAAS API", oauth_version="1.0", oauth_signature_method="PLAINTEXT", oauth_consumer_key="${ck}", oauth_token="${tk}", oauth_signature="%26${ts}", oauth_nonce="${Math.random().toString(36).slice(2)}", oauth_timestamp="${Math.floor(Date.now() / 1000)}"`;
}

/** `path` below /MAAS/api/2.0/, or an absolute path on the host (a resource_uri); key null sends no credentials. */
function send(sim: MaasSim, method: string, path: string, o: { key?: string | null; fields?: Array<[string, string]>; uploads?: Upload[] } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  const key = o.key === undefined ? sim.adminKey : o.key;
  if (key !== null) headers.Authorization = plaintext(key);
  let body: Buffer | undefined;
  if (o.fields || o.uploads) {
    const b = 'files-test-boundary';
    const parts = [
      ...(o.fields ?? []).map(([k, v]) => Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)),
      ...(o.uploads ?? []).flatMap((u) => [Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="${u.name}"; filename="${u.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`), u.content, Buffer.from('\r\n')]),
    ];
    body = Buffer.concat([...parts, Buffer.from(`--${b}--\r\n`)]);
    headers['Content-Type'] = `multipart/form-data; boundary=${b}`;
    headers['Content-Length'] = String(body.length);
  }
  const url = path.startsWith('/') ? `${sim.url.replace(/\/MAAS$/, '')}${path}` : `${sim.url}/api/2.0/${path}`;
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const all = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: all, text: all.toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function started(t: ExecutionContext): Promise<MaasSim> {
  const sim = await startMaasSim();
  t.teardown(() => sim.stop());
  return sim;
}

const put = (sim: MaasSim, filename: string, content: Buffer | string, key?: string) =>
  send(sim, 'POST', 'files/', { fields: [['filename', filename]], uploads: [{ name: 'file', content: Buffer.from(content) }], ...(key ? { key } : {}) });

// Every byte value, so nothing is lost to a text encoding on the way.
const BINARY = Buffer.from([...Array(256).keys(), 0, 13, 10, 255]);

test('maas files - put answers 201 with no body; get by name gives the raw bytes; a second put replaces them', async (t) => {
  const sim = await started(t);
  const created = await put(sim, 'juju-state', BINARY);
  t.is(created.status, 201);
  t.is(created.body.length, 0);
  const got = await send(sim, 'GET', 'files/?op=get&filename=juju-state');
  t.is(got.status, 200);
  t.deepEqual(got.body, BINARY);
  t.is((await put(sim, 'juju-state', 'file two')).status, 201);
  t.is((await send(sim, 'GET', 'files/?op=get&filename=juju-state')).text, 'file two');
  t.is(sim.files().length, 1, 'replaced, not added');
});

test('maas files - files/{name}/ reads JSON with base64 content, resource_uri and anon_resource_uri; a slash in the name stays a slash', async (t) => {
  const sim = await started(t);
  t.is((await put(sim, 'a/b/state.bin', BINARY)).status, 201);
  const r = await send(sim, 'GET', 'files/a/b/state.bin/');
  t.is(r.status, 200);
  t.regex(String(r.headers['content-type']), /^application\/json/);
  const f = JSON.parse(r.text) as { filename: string; content: string; resource_uri: string; anon_resource_uri: string };
  t.is(f.filename, 'a/b/state.bin');
  t.deepEqual(Buffer.from(f.content, 'base64'), BINARY);
  t.is(f.resource_uri, '/MAAS/api/2.0/files/a/b/state.bin/');
  t.regex(f.anon_resource_uri, /^\/MAAS\/api\/2\.0\/files\/\?op=get_by_key&key=[0-9a-f-]{36}$/);
  // The anonymous URI reads the file without credentials; so does get_by_key with the key.
  const anon = await send(sim, 'GET', f.anon_resource_uri, { key: null });
  t.is(anon.status, 200);
  t.deepEqual(anon.body, BINARY);
  // The resource_uri is where the file is deleted.
  t.is((await send(sim, 'DELETE', f.resource_uri)).status, 204);
  const gone = await send(sim, 'GET', 'files/a/b/state.bin/');
  t.is(gone.status, 404);
  t.is(gone.text, 'Not Found');
  t.is(gone.headers.workaround, 'bug1123986', 'a missing file is told apart from a missing endpoint');
});

test('maas files - list is the caller\'s files by name, without content, filtered by prefix', async (t) => {
  const sim = await started(t);
  for (const name of ['prefix-z', 'other', 'prefix-a']) t.is((await put(sim, name, `content of ${name}`)).status, 201);
  t.is((await put(sim, 'users-own', 'x', sim.userKey)).status, 201);
  const all = JSON.parse((await send(sim, 'GET', 'files/')).text) as Array<Record<string, unknown>>;
  t.deepEqual(all.map((f) => f.filename), ['other', 'prefix-a', 'prefix-z']);
  t.deepEqual(Object.keys(all[0] ?? {}).sort(), ['anon_resource_uri', 'filename', 'resource_uri']);
  const some = JSON.parse((await send(sim, 'GET', 'files/?prefix=prefix-')).text) as Array<{ filename: string }>;
  t.deepEqual(some.map((f) => f.filename), ['prefix-a', 'prefix-z']);
  const theirs = JSON.parse((await send(sim, 'GET', 'files/', { key: sim.userKey })).text) as Array<{ filename: string }>;
  t.deepEqual(theirs.map((f) => f.filename), ['users-own']);
});

test('maas files - a file belongs to its owner: another user neither reads, lists nor deletes it, and may use the same name', async (t) => {
  const sim = await started(t);
  t.is((await put(sim, 'shared-name', 'admin data')).status, 201);
  const byName = await send(sim, 'GET', 'files/?op=get&filename=shared-name', { key: sim.userKey });
  t.is(byName.status, 404);
  t.is(byName.text, 'File not found');
  t.is((await send(sim, 'GET', 'files/shared-name/', { key: sim.userKey })).status, 404);
  const del = await send(sim, 'DELETE', 'files/shared-name/', { key: sim.userKey });
  t.is(del.status, 404);
  t.is(del.text, 'No FileStorage matches the given query.');
  t.is((await put(sim, 'shared-name', 'user data', sim.userKey)).status, 201);
  t.is((await send(sim, 'GET', 'files/?op=get&filename=shared-name')).text, 'admin data');
  t.is((await send(sim, 'GET', 'files/?op=get&filename=shared-name', { key: sim.userKey })).text, 'user data');
  // The key is the credential: get_by_key reads any owner's file.
  const adminFile = sim.files().find((f) => f.owner === 'admin');
  t.is((await send(sim, 'GET', `files/?op=get_by_key&key=${adminFile?.key ?? ''}`, { key: sim.userKey })).text, 'admin data');
});

test('maas files - DELETE files/?filename= deletes, as DELETE files/{name}/ does', async (t) => {
  const sim = await started(t);
  t.is((await put(sim, 'doomed', 'x')).status, 201);
  const missing = await send(sim, 'DELETE', 'files/');
  t.is(missing.status, 400);
  t.is(missing.text, 'No provided filename!');
  t.is((await send(sim, 'DELETE', 'files/?filename=doomed')).status, 204);
  t.is((await send(sim, 'DELETE', 'files/?filename=doomed')).status, 404);
  t.deepEqual(sim.files(), []);
});

test('maas files - bad puts and gets get MAAS\'s status codes and texts', async (t) => {
  const sim = await started(t);
  const cases: Array<[string, Promise<Answer>, number, string]> = [
    ['no filename', send(sim, 'POST', 'files/', { uploads: [{ name: 'file', content: Buffer.from('x') }] }), 400, 'Filename not supplied'],
    ['no file', send(sim, 'POST', 'files/', { fields: [['filename', 'f']] }), 400, 'File not supplied'],
    ['two files', send(sim, 'POST', 'files/', { fields: [['filename', 'f']], uploads: [{ name: 'file', content: Buffer.from('1') }, { name: 'file2', content: Buffer.from('2') }] }), 400, 'Exactly one file must be supplied'],
    ['get without filename', send(sim, 'GET', 'files/?op=get'), 400, 'No provided filename!'],
    ['get of a missing file', send(sim, 'GET', 'files/?op=get&filename=nope'), 404, 'File not found'],
    ['get_by_key without key', send(sim, 'GET', 'files/?op=get_by_key'), 400, 'No provided key!'],
    ['get_by_key of an unknown key', send(sim, 'GET', 'files/?op=get_by_key&key=00000000-0000-4000-8000-000000000000'), 404, 'No FileStorage matches the given query.'],
  ];
  for (const [what, answer, status, text] of cases) {
    const a = await answer;
    t.is(a.status, status, what);
    t.is(a.text, text, what);
    t.regex(String(a.headers['content-type']), /^text\/plain/, what);
  }
  // An empty file is a file.
  t.is((await put(sim, 'empty', '')).status, 201);
  t.is((await send(sim, 'GET', 'files/?op=get&filename=empty')).body.length, 0);
});

test('maas files - without credentials only get_by_key answers: other GETs are 400, the rest 401', async (t) => {
  const sim = await started(t);
  t.is((await put(sim, 'f', 'x')).status, 201);
  const cases: Array<[string, string, number]> = [
    ['GET', 'files/?op=get&filename=f', 400],
    ['GET', 'files/', 400],
    ['GET', 'files/f/', 401],
    ['DELETE', 'files/f/', 401],
    ['POST', 'files/', 401],
  ];
  for (const [method, path, status] of cases) t.is((await send(sim, method, path, { key: null })).status, status, `${method} ${path}`);
  const key = sim.files()[0]?.key ?? '';
  t.is((await send(sim, 'GET', `files/?op=get_by_key&key=${key}`, { key: null })).text, 'x');
  // Credentials that are wrong are refused, not taken as anonymous.
  const [ck, tk] = sim.adminKey.split(':');
  t.is((await send(sim, 'GET', `files/?op=get_by_key&key=${key}`, { key: `${ck}:${tk}:wrong` })).status, 401);
});
