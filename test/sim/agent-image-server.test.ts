// The image server as HTTP clients use it beyond a plain GET: byte ranges (curl -C, qemu-img over
// http), conditional GETs, and a Last-Modified that moves when an image is replaced, which is
// what Ironic's image cache compares with its cached copy before reusing it.
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { startImageServer } from '../../src/sim/agent/index.ts';

const BODY = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));

test('image server - a Range request answers 206 with Content-Range, a bad one 416, and a full GET says Accept-Ranges', async (t) => {
  const images = await startImageServer({ images: { 'os.img': BODY } });
  t.teardown(() => images.stop());
  const get = (range: string, method = 'GET') => fetch(images.urlOf('os.img'), { method, headers: { Range: range } });

  const full = await fetch(images.urlOf('os.img'));
  t.is(full.headers.get('accept-ranges'), 'bytes');
  await full.arrayBuffer();

  const first = await get('bytes=0-9');
  t.is(first.status, 206);
  t.is(first.headers.get('content-range'), 'bytes 0-9/1000');
  t.is(first.headers.get('content-length'), '10');
  t.deepEqual(Buffer.from(await first.arrayBuffer()), BODY.subarray(0, 10));

  const tail = await get('bytes=-10');
  t.is(tail.headers.get('content-range'), 'bytes 990-999/1000');
  t.deepEqual(Buffer.from(await tail.arrayBuffer()), BODY.subarray(990));

  const open = await get('bytes=995-');
  t.is(open.headers.get('content-range'), 'bytes 995-999/1000');
  t.is((await open.arrayBuffer()).byteLength, 5);

  const clipped = await get('bytes=900-5000');
  t.is(clipped.headers.get('content-range'), 'bytes 900-999/1000');
  t.is((await clipped.arrayBuffer()).byteLength, 100);

  const beyond = await get('bytes=1000-');
  t.is(beyond.status, 416);
  t.is(beyond.headers.get('content-range'), 'bytes */1000');
  await beyond.arrayBuffer();

  // A Range the server does not understand is ignored: the whole image, 200.
  const multi = await get('bytes=0-1,5-6');
  t.is(multi.status, 200);
  t.is((await multi.arrayBuffer()).byteLength, 1000);

  const head = await get('bytes=0-9', 'HEAD');
  t.is(head.status, 206);
  t.is(head.headers.get('content-length'), '10');
});

test('image server - If-Modified-Since at or after Last-Modified answers 304, before it 200; If-Range with an old date sends the whole image', async (t) => {
  const images = await startImageServer({ images: { 'os.img': BODY } });
  t.teardown(() => images.stop());
  const first = await fetch(images.urlOf('os.img'));
  const lastModified = first.headers.get('last-modified') ?? '';
  await first.arrayBuffer();
  t.truthy(lastModified);

  const same = await fetch(images.urlOf('os.img'), { headers: { 'If-Modified-Since': lastModified } });
  t.is(same.status, 304);
  t.is((await same.arrayBuffer()).byteLength, 0);
  const older = await fetch(images.urlOf('os.img'), { headers: { 'If-Modified-Since': new Date(Date.parse(lastModified) - 60_000).toUTCString() } });
  t.is(older.status, 200);
  t.is((await older.arrayBuffer()).byteLength, 1000);
  const garbage = await fetch(images.urlOf('os.img'), { headers: { 'If-Modified-Since': 'not a date' } });
  t.is(garbage.status, 200);
  await garbage.arrayBuffer();

  const stale = await fetch(images.urlOf('os.img'), { headers: { Range: 'bytes=0-9', 'If-Range': new Date(Date.parse(lastModified) - 60_000).toUTCString() } });
  t.is(stale.status, 200);
  await stale.arrayBuffer();
  const fresh = await fetch(images.urlOf('os.img'), { headers: { Range: 'bytes=0-9', 'If-Range': lastModified } });
  t.is(fresh.status, 206);
  await fresh.arrayBuffer();
});

test('image server - replacing an image moves its Last-Modified (Ironic\'s image cache re-downloads only then); a served file has its own mtime', async (t) => {
  let now = new Date('2025-03-01T10:00:00Z');
  const dir = await mkdtemp(join(tmpdir(), 'image-server-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'boot.ipxe'), '#!ipxe\n');
  const fileTime = new Date('2024-12-24T08:30:00Z');
  await utimes(join(dir, 'boot.ipxe'), fileTime, fileTime);
  const images = await startImageServer({ images: { 'a.img': 'one', 'b.img': 'two' }, dir, clock: () => now });
  t.teardown(() => images.stop());
  const lastModified = async (path: string) => (await fetch(`${images.url}/${path}`, { method: 'HEAD' })).headers.get('last-modified');

  t.is(await lastModified('a.img'), 'Sat, 01 Mar 2025 10:00:00 GMT');
  now = new Date('2025-03-01T10:05:00Z');
  images.put('a.img', 'one, replaced');
  t.is(await lastModified('a.img'), 'Sat, 01 Mar 2025 10:05:00 GMT');
  t.is(await lastModified('a.img.sha256sum'), 'Sat, 01 Mar 2025 10:05:00 GMT', 'its checksum file changed with it');
  t.is(await lastModified('b.img'), 'Sat, 01 Mar 2025 10:00:00 GMT', 'the other image did not change');
  t.is(await lastModified('boot.ipxe'), fileTime.toUTCString());
});

test('image server - a path with a broken percent-escape is a 400, not a 500', async (t) => {
  const images = await startImageServer({ images: { 'os.img': BODY } });
  t.teardown(() => images.stop());
  const status = await new Promise<number>((resolve) => http.get({ host: '127.0.0.1', port: new URL(images.url).port, path: '/os%E0%A4%A.img', agent: false }, (res) => { res.resume(); resolve(res.statusCode ?? 0); }));
  t.is(status, 400);
  const post = await fetch(images.urlOf('os.img'), { method: 'POST' });
  t.is(post.status, 405);
  t.is(post.headers.get('allow'), 'GET, HEAD');
});
