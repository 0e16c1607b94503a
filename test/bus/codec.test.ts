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

test('codec - a message is written byte for byte as the previous build wrote it, and each of a run keeps its own bytes', (t) => {
  const message = { pool: 'p', grants: [{ holder: 'h1', at: 1.5 }, { holder: 'h2', at: -7 }], seq: 70000 };
  const bytes = encode(message);
  t.is(Buffer.from(bytes).toString('hex'), '83a4706f6f6ca170a66772616e74739282a6686f6c646572a26831a26174cb3ff800000000000082a6686f6c646572a26832a26174f9a3736571ce00011170');
  const run = Array.from({ length: 20 }, (_, i) => ({ pool: 'x'.repeat(i * 900), seq: i }));
  const written = run.map((m) => encode(m));
  const Pool = z.object({ pool: z.string(), seq: z.number() });
  run.forEach((m, i) => t.deepEqual(decode('s', written[i]!, Pool), { ok: true, value: m }));
  t.deepEqual(decode('s', bytes, z.object({ pool: z.string(), seq: z.number() }).passthrough()).ok, true);
});
