// `--max-calls`, the per-backend bound on calls without a slot (issue 30): parsed over the
// defaults, and a bad value refused as a usage error that says what it takes.
import test from 'ava';
import { parseMaxCalls } from '../../src/cli/max-calls.ts';
import { DEFAULT_CALL_LIMITS } from '../../src/node/index.ts';
import { metalfleet } from './run.ts';

test('max calls - kinds, pool names and a bare default, repeated or comma-separated, over the defaults; 0 is no bound', (t) => {
  t.deepEqual(parseMaxCalls([]), DEFAULT_CALL_LIMITS);
  const parsed = parseMaxCalls(['ironic=100,maas=20', '40', 'ironic:http://a:6385=7', 'fixture=3', 'maas=0']);
  t.deepEqual(parsed.limits, { fixture: 3, ironic: 100, maas: Number.POSITIVE_INFINITY, 'ironic:http://a:6385': 7 });
  t.is(parsed.defaultLimit, 40);
  t.is(parseMaxCalls(['0']).defaultLimit, Number.POSITIVE_INFINITY);
});

test('max calls - bad values are refused naming the value and what the flag takes', (t) => {
  for (const bad of ['ironic=abc', 'ironic=', '=5', 'ironic=-1', 'ironic=2.5', 'many', 'ironic=1e3', '']) {
    const err = t.throws(() => parseMaxCalls([bad]), undefined, bad);
    t.regex(err?.message ?? '', new RegExp(`^--max-calls: "${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}": expected BACKEND=N`), bad);
  }
});

test('max calls - metalfleet node refuses a bad --max-calls before it connects (exit 2)', async (t) => {
  const r = await metalfleet('node', '--nats', 'nats://127.0.0.1:1', '--allow-unsigned-commands', '--max-calls', 'ironic=lots');
  t.is(r.code, 2);
  t.regex(r.stderr, /--max-calls: "ironic=lots": expected BACKEND=N \(a backend kind such as "ironic", or a pool name such as "ironic:http:\/\/ironic:6385"\) or N for every backend, N a whole number >= 1, or 0 for no bound/);
  const demo = await metalfleet('demo', '--hosts', '1', '--max-calls', 'fixture=x');
  t.is(demo.code, 2);
  t.regex(demo.stderr, /--max-calls: "fixture=x"/);
});
