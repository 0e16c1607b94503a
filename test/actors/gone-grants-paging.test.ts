// Issue 30 (point 1, b): a new shard owner's sweep for deleted hosts' grants read the broker's
// figures, which list a pool's first 200 holders only: in a fleet holding more, a gone host behind
// those kept its slot until the TTL. The sweep pages through every holder the broker knows.
import test from 'ava';
import { releaseGoneHolders } from '../../src/actors/host/gone-grants.ts';
import { isLive } from '../../src/actors/capacity/cluster/index.ts';
import type { ResourceStore } from '../../src/ports/index.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { harness } from './capacity-cluster-harness.ts';
import type { CapacityMsg } from '../../src/actors/capacity/index.ts';
import type { ActorRef, Behavior } from '../../src/actors/runtime/index.ts';
import { spawn, startSystem } from '../../src/actors/runtime/index.ts';

// Past the figures' list of a pool's holders (200).
const HOLDERS = 250;

test('gone grants paging - a gone host behind more than 200 holders is found and released', async (t) => {
  const h = await harness({ limit: HOLDERS + 10 });
  t.teardown(() => h.stop());
  h.broker('broker-a').leadership.elect(1);
  const proxy = h.proxy('node-1');
  await h.settle();
  const keys = Array.from({ length: HOLDERS }, (_, i) => `lab/h-${String(i).padStart(5, '0')}`);
  // Sorted after every other name, so neither a figures list nor a first page reaches it.
  const gone = 'lab/zz-gone';
  for (const key of [...keys, gone]) h.holder(proxy, key).acquire();
  await h.settle();
  const held = async (): Promise<Set<string>> => new Set((await h.record())?.grants.filter((g) => isLive(g, h.clock.now())).map((g) => g.holder));
  t.is((await held()).size, HOLDERS + 1);
  t.true((await held()).has(gone));

  const store = { get: (_kind: string, key: string) => Promise.resolve(key === gone ? undefined : {}) } as unknown as ResourceStore;
  const released = await releaseGoneHolders({ broker: proxy, store, log: silentLogger }, new Set(keys), () => true);
  t.is(released, 1);
  await h.settle();
  const after = await held();
  t.false(after.has(gone), 'the gone host\'s grant went back at once, not at its TTL');
  t.is(after.size, HOLDERS, 'every present host keeps its grant');
  t.deepEqual(h.violations, []);
});

test('gone grants paging - the sweep follows the broker\'s pages to the last one', async (t) => {
  const system = startSystem({ onError: () => {} });
  t.teardown(() => system.stop());
  const pages = new Map<string | undefined, { holders: string[]; next: string | null }>([
    [undefined, { holders: ['lab/a', 'lab/b'], next: 'lab/b' }],
    ['lab/b', { holders: ['lab/c', 'lab/d'], next: 'lab/d' }],
    ['lab/d', { holders: ['lab/gone'], next: null }],
  ]);
  const asked: (string | undefined)[] = [];
  const told: string[] = [];
  const broker: Behavior<null, CapacityMsg> = {
    kind: 'fake-broker',
    init: () => null,
    receive: (s, msg) => {
      if (msg.type === 'holders') {
        asked.push(msg.after);
        msg.reply(pages.get(msg.after)!);
      } else if (msg.type === 'releaseGone') told.push(msg.holder);
      return s;
    },
  };
  const ref = spawn(system, 'broker', broker) as ActorRef<CapacityMsg>;
  const store = { get: (_kind: string, key: string) => Promise.resolve(key === 'lab/gone' ? undefined : {}) } as unknown as ResourceStore;
  const released = await releaseGoneHolders({ broker: ref, store, log: silentLogger }, new Set(['lab/a', 'lab/b', 'lab/c', 'lab/d']), () => true);
  t.is(released, 1);
  t.deepEqual(asked, [undefined, 'lab/b', 'lab/d']);
  await new Promise<void>((resolve) => setImmediate(resolve));
  t.deepEqual(told, ['lab/gone']);
});
