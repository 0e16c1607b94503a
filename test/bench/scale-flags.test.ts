// The scale and kv benches refuse bad flags before they start anything (no server, no node), with
// a message naming the flag.
import test from 'ava';
import { run as scale } from '../../bench/scale.ts';
import { run as kv } from '../../bench/kv.ts';

test('bench scale - a limit of 0 is refused in both forms, naming --limit: it measures against the slots', async (t) => {
  await t.throwsAsync(scale({ limit: '0' }), { message: /^--limit: scale measures against the slots, so it needs a limit of at least 1$/ });
  await t.throwsAsync(scale({ nodes: '3', limit: '0' }), { message: /^--limit: scale measures against the slots/ });
});

test('bench scale and kv - a flag that is not a number is refused naming it and the value', async (t) => {
  await t.throwsAsync(scale({ hosts: 'many' }), { message: '--hosts: expected a number >= 0, got "many"' });
  await t.throwsAsync(scale({ nodes: '3', latency: '-5' }), { message: '--latency: expected a number >= 0, got "-5"' });
  await t.throwsAsync(kv({ writers: 'x' }), { message: '--writers: expected a number >= 0, got "x"' });
});

test('bench scale - --persist is refused empty, or with --nodes: a cluster keeps its KV in NATS', async (t) => {
  await t.throwsAsync(scale({ persist: '' }), { message: '--persist: expected the path of a file to save the host buckets to, got ""' });
  await t.throwsAsync(scale({ nodes: '3', persist: '/tmp/x.json' }), { message: /^--persist: only the embedded form saves its KV to a file/ });
});
