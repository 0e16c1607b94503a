// The bus codec writes plain MessagePack: every message decodes alone, on any node and any version.
import test from 'ava';
import { z } from 'zod';
import { decode, encode } from '../../src/bus/codec.ts';

const Message = z.object({ host: z.string(), attempt: z.number().int(), labels: z.record(z.string(), z.string()) });

test('codec - a message packs each map with the smallest size header and decodes back', (t) => {
  const message = { host: 'metal3/h1', attempt: 2, labels: { rack: 'r1' } };
  const bytes = encode(message);
  // fixmap of three keys (0x83), not map16 (0xde 00 03): two bytes less per map, same format.
  t.is(bytes[0], 0x83);
  t.deepEqual(decode('mf.test', bytes, Message), { ok: true, value: message });
});

test('codec - a message of an older node, whose maps are map16, still decodes', (t) => {
  const older = Uint8Array.from([0xde, 0x00, 0x03, 0xa4, 0x68, 0x6f, 0x73, 0x74, 0xa2, 0x68, 0x31, 0xa7, 0x61, 0x74, 0x74, 0x65, 0x6d, 0x70, 0x74, 0x01, 0xa6, 0x6c, 0x61, 0x62, 0x65, 0x6c, 0x73, 0xde, 0x00, 0x00]);
  t.deepEqual(decode('mf.test', older, Message), { ok: true, value: { host: 'h1', attempt: 1, labels: {} } });
});
