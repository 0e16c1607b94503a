// The simulator's multipart/form-data reader against bodies written the ways MAAS clients write them.
import test from 'ava';
import { MaasApiError } from '../../src/sim/maas/http/api-error.ts';
import { headerParam, parseMultipart } from '../../src/sim/maas/http/multipart.ts';

const CT = 'multipart/form-data; boundary=XyZ';

function body(...parts: string[]): Buffer {
  return Buffer.from(`preamble\r\n${parts.map((p) => `--XyZ\r\n${p}\r\n`).join('')}--XyZ--\r\nepilogue`);
}

test('multipart - fields in order, repeated names kept, files apart, preamble and epilogue ignored', (t) => {
  const parsed = parseMultipart(
    body(
      'Content-Disposition: form-data; name="op"\r\n\r\nallocate',
      'Content-Disposition: form-data; name="tags"\r\n\r\ngpu',
      'Content-Disposition: form-data; name="tags"\r\n\r\nnvidia',
      'Content-Disposition: form-data; name="file"; filename="f.bin"\r\nContent-Type: application/octet-stream\r\n\r\n\u0000\u0001\r\nraw',
    ),
    CT,
  );
  t.deepEqual(parsed.fields, [['op', 'allocate'], ['tags', 'gpu'], ['tags', 'nvidia']]);
  t.is(parsed.files.length, 1);
  t.is(parsed.files[0]?.filename, 'f.bin');
  t.deepEqual([...(parsed.files[0]?.content ?? [])], [0, 1, 13, 10, 0x72, 0x61, 0x77]);
});

test('multipart - a value keeps its CRLFs, UTF-8 and an empty value; base64 parts are decoded', (t) => {
  const parsed = parseMultipart(
    body(
      'Content-Disposition: form-data; name="user_data"\r\n\r\n#!/bin/sh\r\necho héllo\r\n',
      'Content-Disposition: form-data; name="comment"\r\n\r\n',
      `Content-Disposition: form-data; name="b64"\r\nContent-Transfer-Encoding: base64\r\n\r\n${Buffer.from('ünïcode').toString('base64')}`,
    ),
    CT,
  );
  t.deepEqual(parsed.fields, [['user_data', '#!/bin/sh\r\necho héllo\r\n'], ['comment', ''], ['b64', 'ünïcode']]);
});

test('multipart - quoted boundaries and names with escapes (Go) and RFC 5987 names are read', (t) => {
  const parsed = parseMultipart(
    Buffer.from('--a b\r\nContent-Disposition: form-data; name="say \\"hi\\""\r\n\r\n1\r\n--a b\r\ncontent-disposition: FORM-DATA; name*=utf-8\'\'caf%C3%A9\r\n\r\n2\r\n--a b--'),
    'multipart/form-data; charset=utf-8; boundary="a b"',
  );
  t.deepEqual(parsed.fields, [['say "hi"', '1'], ['café', '2']]);
  t.is(headerParam('form-data; filename="x"; name="y"', 'name'), 'y');
});

test('multipart - a folded part header (Python email package) is joined before it is read', (t) => {
  const parsed = parseMultipart(body('Content-Type: text/plain\r\nContent-Disposition: form-data;\r\n name="long_parameter_name"\r\n\r\nv'), CT);
  t.deepEqual(parsed.fields, [['long_parameter_name', 'v']]);
});

test('multipart - broken bodies are a 400 that says what is wrong', (t) => {
  const cases: Array<[string, Buffer, string, RegExp]> = [
    ['no boundary', body('Content-Disposition: form-data; name="a"\r\n\r\n1'), 'multipart/form-data', /no boundary/],
    ['boundary absent', Buffer.from('nothing here'), CT, /does not occur/],
    ['not closed', Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\n1'), CT, /closing boundary/],
    ['not form-data', body('Content-Disposition: attachment; name="a"\r\n\r\n1'), CT, /form-data/],
  ];
  for (const [name, raw, ct, message] of cases) {
    const err = t.throws(() => parseMultipart(raw, ct), { instanceOf: MaasApiError }, name);
    t.is(err?.status, 400, name);
    t.regex(err?.body ?? '', message, name);
  }
});
