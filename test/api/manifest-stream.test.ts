// -f - reads standard input as a stream: bounded by the file limit, decoded as files are.
import test from 'ava';
import { readManifestStream } from '../../src/api/manifest-file.ts';

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield Buffer.from(part);
}

test('manifest stream - the text of every chunk, as UTF-8', async (t) => {
  t.deepEqual(await readManifestStream(chunks('kind: ', 'ConfigMap\n')), { ok: true, text: 'kind: ConfigMap\n' });
});

test('manifest stream - refused past the limit, without reading on', async (t) => {
  let read = 0;
  async function* endless(): AsyncGenerator<Uint8Array> {
    for (;;) {
      read += 1;
      yield Buffer.alloc(10, 0x61);
    }
  }
  const r = await readManifestStream(endless(), 25);
  t.false(r.ok);
  t.regex(r.ok ? '' : r.reason, /a manifest file may be at most/);
  t.is(read, 3);
});

test('manifest stream - bytes that are not UTF-8 are refused naming the line', async (t) => {
  const r = await readManifestStream((async function* () {
    yield Buffer.from('a: 1\nb: ');
    yield Buffer.from([0xe9, 0x0a]);
  })());
  t.false(r.ok);
  t.regex(r.ok ? '' : r.reason, /line 2 has a byte that is not UTF-8/);
});
