// The demo's last line gives a rate a slow run can read: below 10 hosts/s with one decimal (or in
// hosts/min below 0.1), never "(0 hosts/s)" for hosts that all reached their target.
import test from 'ava';
import { lines, metalfleet } from './run.ts';

test('demo - a slow run says its rate with a decimal, not rounded to 0 hosts/s', async (t) => {
  const r = await metalfleet('demo', '--no-maas', '--hosts', '3', '--latency', '400', '--no-progress');
  t.is(r.code, 0, r.stderr);
  const last = lines(r.stdout).at(-1) ?? '';
  t.regex(last, /^3\/3 hosts reached their target in \d+\.\ds \((\d\.\d hosts\/s|\d+\.\d hosts\/min)\)$/);
  t.notRegex(last, /\(0 hosts\/s\)/);
});
