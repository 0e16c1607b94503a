// The node a host's last call left, as its next call may take it (last-read.ts): once, fresh
// within one short poll of when it was read (however many calls handed it on), and only to the
// same owner of the same node.
import test from 'ava';
import type { IronicNode } from '../../src/adapters/ironic/client/index.ts';
import { LastRead } from '../../src/adapters/ironic/provisioner/last-read.ts';
import type { HostData } from '../../src/ports/index.ts';

const node = { uuid: 'u-1', provision_state: 'manageable' } as IronicNode;
const host = (o: Partial<HostData> = {}): HostData => ({ key: 'lab/a', provisionerId: 'u-1', fence: { holder: 'n', shard: 1, epoch: 2 }, ...o } as HostData);

test('last read - taken once, while fresh', (t) => {
  let now = 1_000;
  const last = new LastRead(500, () => now);
  last.keep(host(), { node, at: now });
  t.is(last.take(host())?.node, node);
  t.is(last.take(host()), undefined, 'used once');
  last.keep(host(), { node, at: now });
  now += 501;
  t.is(last.take(host()), undefined, 'older than one short poll');
  t.is(last.size, 0);
});

test('last read - handing it on keeps the age of the read, not of the hand-over', (t) => {
  let now = 1_000;
  const last = new LastRead(500, () => now);
  last.keep(host(), { node, at: now });
  now += 300;
  const handed = last.take(host());
  t.truthy(handed);
  if (handed) last.keep(host(), handed);
  now += 300;
  t.is(last.take(host()), undefined, '600 ms after the read');
});

test('last read - another owner or another node reads again', (t) => {
  const now = 1_000;
  const last = new LastRead(500, () => now);
  last.keep(host(), { node, at: now });
  t.is(last.take(host({ fence: { holder: 'n', shard: 1, epoch: 3 } })), undefined);
  last.keep(host(), { node, at: now });
  t.is(last.take(host({ provisionerId: 'u-2' })), undefined);
});

test('last read - hosts that never come back are let go at the next keep', (t) => {
  let now = 1_000;
  const last = new LastRead(500, () => now);
  for (let i = 0; i < 100; i++) last.keep(host({ key: `lab/h${i}` }), { node, at: now });
  now += 600;
  last.keep(host({ key: 'lab/late' }), { node, at: now });
  t.is(last.size, 1);
});
