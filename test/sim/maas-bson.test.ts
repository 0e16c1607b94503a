// The details encoder against the BSON spec (bsonspec.org), byte by byte: this reads the bytes
// with its own walk of the grammar, sharing nothing with src/sim/maas/http/bson.ts.
import test from 'ava';
import { encodeBson } from '../../src/sim/maas/http/bson.ts';

test('bson - a binary and a null element, laid out as the spec says', (t) => {
  const bytes = encodeBson([['lldp', Buffer.from('<a/>')], ['lshw', null]]);
  const expected = Buffer.from([
    // int32 total length: 4 + (1+5+4+1+4) + (1+5) + 1 = 26
    26, 0, 0, 0,
    // 0x05 "lldp\0" int32 4, subtype 0x00, "<a/>"
    0x05, 0x6c, 0x6c, 0x64, 0x70, 0x00, 4, 0, 0, 0, 0x00, 0x3c, 0x61, 0x2f, 0x3e,
    // 0x0A "lshw\0"
    0x0a, 0x6c, 0x73, 0x68, 0x77, 0x00,
    // document terminator
    0x00,
  ]);
  t.deepEqual([...bytes], [...expected]);
});

test('bson - an empty document is five bytes', (t) => {
  t.deepEqual([...encodeBson([])], [5, 0, 0, 0, 0]);
});

test('bson - a key with NUL is refused rather than written ambiguously', (t) => {
  t.throws(() => encodeBson([['a\0b', null]]), { message: /contains NUL/ });
});
