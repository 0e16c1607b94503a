// The scale bench's breach diagnostic: it must fire when the backend runs more gated operations
// than the limit (once per burst, every opening counted) and name the busy hosts that hold no
// grant with the node and epoch of the call that made them busy.
import test from 'ava';
import { describeBreach, limitWatch } from '../../bench/limit-watch.ts';
import type { Breach } from '../../bench/limit-watch.ts';
import type { FixtureCallRecord } from '../../src/adapters/fixture/index.ts';

const opened = (host: string, busy: number) => ({ host, op: 'provision' as const, kind: 'opened' as const, busy, at: 0 });
const closed = (host: string, busy: number) => ({ host, op: 'provision' as const, kind: 'closed' as const, busy, at: 0 });

test('limit watch - openings past the limit are counted, explained once per burst, with the gates open at that moment', (t) => {
  const explained: Breach[] = [];
  const w = limitWatch(2, (b) => explained.push(b));
  w.onGate(opened('ns/a', 1));
  w.onGate(opened('ns/b', 2));
  t.is(w.breaches(), 0);
  w.onGate(opened('ns/c', 3));
  w.onGate(closed('ns/a', 2));
  w.onGate(opened('ns/d', 3));
  t.is(w.breaches(), 2);
  t.is(explained.length, 1, 'the second breach of the burst is counted, not explained again');
  t.deepEqual(explained[0]!.open.map((g) => g.host), ['ns/a', 'ns/b', 'ns/c']);
  t.is(explained[0]!.busy, 3);
});

test('limit watch - describes the busy hosts without a grant, from the call that opened their operation', (t) => {
  const call = (host: string, holder: string, epoch: number, op: FixtureCallRecord['op'] = 'provision'): FixtureCallRecord =>
    ({ host, op, shard: 7, epoch, holder, at: 0, sentAt: null, refused: false });
  const breach: Breach = { busy: 3, at: 2_500, open: [
    { host: 'ns/a', op: 'provision', openedAt: 2_000 },
    { host: 'ns/b', op: 'provision', openedAt: 2_400 },
    { host: 'ns/c', op: 'provision', openedAt: 2_450 },
  ] };
  const calls = [call('ns/a', 'node-a', 3), call('ns/a', 'node-a', 3, 'hardwareState'), call('ns/b', 'node-b', 4), call('ns/c', 'node-c', 5)];
  const lines = describeBreach(breach, calls, { holders: ['ns/b', 'MaasMachine:ns/c'], driven: new Map([['ns/a', { node: 'node-b', state: 'provisioning', shard: 7 }]]) }, 500);
  t.is(lines[0], 'over the limit at 2.0 s: 3 busy at the backend, 2 grants listed, 2 busy hosts hold none');
  t.is(lines[1], '  ns/a: opened by provision from node-a (shard 7, epoch 3) 500 ms before; driven now by node-b (shard 7) in provisioning');
  t.is(lines[2], '  ns/c: opened by provision from node-c (shard 7, epoch 5) 50 ms before; driven by no node now', 'a grant of another kind for the same name is not this host\'s');
  t.is(lines.length, 3);
});
