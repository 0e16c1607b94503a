import test from 'ava';
import type { CapacityFigures, CapacityMsg } from '../../src/actors/capacity/index.ts';
import { releaseGoneHolders } from '../../src/actors/host/gone-grants.ts';
import { maasMachineHolder } from '../../src/actors/maas/maas-machine-actor.ts';
import type { ActorRef, Behavior } from '../../src/actors/runtime/index.ts';
import { spawn, startSystem } from '../../src/actors/runtime/index.ts';
import type { ResourceStore } from '../../src/ports/index.ts';

// A node taking shards over releases the grants of hosts it did not find (gone-grants.ts). A
// MaasMachine of the same namespace/name is no host: before its holder was named apart, a new
// owner's sweep took every MaasMachine grant for a deleted host's and freed it mid-deploy.

function figures(holders: string[]): CapacityFigures {
  const pool = { pool: 'maas:http://maas', limit: 5, inUse: holders.length, exempt: 0, waiting: 0, longestWaitMs: 0, stallSeconds: 0, queue: [], holders: holders.map((holder) => ({ holder, operation: 'provision', sinceMs: 10, exempt: false, grantId: `g-${holder}` })) };
  return { pools: [pool] as unknown as CapacityFigures['pools'], totals: { inUse: holders.length, exempt: 0, waiting: 0, longestWaitMs: 0, stallSeconds: 0 } } as CapacityFigures;
}

test('gone grants - a MaasMachine\'s grant is never taken for a deleted host\'s; the host\'s own is released', async (t) => {
  const system = startSystem({ onError: () => {} });
  t.teardown(() => system.stop());
  const told: CapacityMsg[] = [];
  const broker: Behavior<null, CapacityMsg> = {
    kind: 'fake-broker',
    init: () => null,
    receive: (s, msg) => {
      if (msg.type === 'figures') msg.reply(figures([maasMachineHolder('lab/cp-0'), 'lab/gone-host']));
      else if (msg.type === 'holders') msg.reply({ holders: [maasMachineHolder('lab/cp-0'), 'lab/gone-host'], next: null });
      else told.push(msg);
      return s;
    },
  };
  const ref = spawn(system, 'broker', broker) as ActorRef<CapacityMsg>;
  // Nothing of either name is a BareMetalHost in the store.
  const store = { get: () => Promise.resolve(undefined) } as unknown as ResourceStore;
  const log = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} } as never;
  const released = await releaseGoneHolders({ broker: ref, store, log }, new Set(), () => true);
  t.is(released, 1);
  await new Promise<void>((resolve) => setImmediate(resolve));
  t.deepEqual(told.map((m) => (m as { holder?: string }).holder), ['lab/gone-host']);
});

test('gone grants - a MaasMachine holds its grants under a name no host has', (t) => {
  t.is(maasMachineHolder('lab/cp-0'), 'MaasMachine:lab/cp-0');
});
