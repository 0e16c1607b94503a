// The hand-off of a freed slot on one node, wired as startNode wires it (the proxy asks this
// node's broker in process, the broker pushes to this node's proxy in process): the next waiter
// hears its grant in the task that frees the slot, whatever else the process has queued. The
// capacity bench's hand-off p99 is this path (issue 29).
import test from 'ava';
import { createMemoryBus } from '../../src/bus/index.ts';
import { SlotLease, type CapacityMsg, type SlotNotice } from '../../src/actors/capacity/index.ts';
import { createManualLeadership, pushToProxy, spawnCapacityProxy, startClusterBroker, type ClusterBroker } from '../../src/actors/capacity/cluster/index.ts';
import { createManualClock, spawn, startSystem, tell, type ActorRef, type Behavior } from '../../src/actors/runtime/index.ts';
import { SLICE_MS } from '../../src/actors/runtime/receive.ts';
import type { KvBucket } from '../../src/ports/index.ts';
import { deferred, waitFor } from '../support/wait.ts';

const POOL = 'ironic:http://127.0.0.1:6385';
const NODE = 'node-1';

interface Holder {
  readonly heard: SlotNotice[];
  acquire(): void;
  release(): void;
}

/** KV whose updates wait while the gate is closed: a broker turn awaiting its write. */
function gatedKv(kv: KvBucket): { kv: KvBucket; close(): void; open(): void; waiting(): number } {
  let gate: ReturnType<typeof deferred<void>> | null = null;
  let waiting = 0;
  const gated: KvBucket = Object.assign(Object.create(kv) as KvBucket, {
    async update(key: string, value: Uint8Array, revision: number): Promise<number> {
      const g = gate;
      if (g !== null) {
        waiting++;
        await g.promise;
        waiting--;
      }
      return kv.update(key, value, revision);
    },
  });
  return {
    kv: gated,
    close: () => void (gate = deferred()),
    open: () => {
      gate?.resolve(undefined);
      gate = null;
    },
    waiting: () => waiting,
  };
}

async function oneNode(t: { teardown(fn: () => void): void }, limit: number) {
  const clock = createManualClock(1_000_000);
  const failures: string[] = [];
  const system = startSystem({ name: 'capacity-handoff-test', onError: (f) => failures.push(`${f.path}: ${f.message}`) });
  const bus = createMemoryBus();
  const store = gatedKv(bus.kv.bucket('capacity'));
  const transport = bus.connect(NODE);
  const leadership = createManualLeadership();
  let proxy: ActorRef<CapacityMsg> | null = null;
  const broker: ClusterBroker = startClusterBroker(system, {
    transport, kv: store.kv, leadership, defaultLimit: limit, ttlMs: 30_000, clock,
    localPush: (node, push) => node === NODE && proxy !== null && pushToProxy(proxy, push, clock.now()),
  });
  proxy = spawnCapacityProxy(system, { transport, node: NODE, ttlMs: 30_000, clock, localBroker: (req) => broker.request(req) });
  const p = proxy;
  t.teardown(() => {
    broker.stop();
    system.stop();
  });
  leadership.elect(1);
  await waitFor(() => broker.epoch === 1, 5_000, 'the broker to serve');
  const holder = (key: string): Holder => {
    const heard: SlotNotice[] = [];
    const lease: SlotLease = new SlotLease(p, key, clock, 30_000, () => lease.renew());
    return { heard, acquire: () => lease.request(POOL, 'provisioning', false, (n) => heard.push(n)), release: () => lease.release() };
  };
  const granted = (h: Holder): boolean => h.heard.at(-1)?.type === 'slotGranted';
  const queued = (h: Holder): boolean => h.heard.at(-1)?.type === 'slotQueued';
  return { system, store, holder, granted, queued, failures };
}

/** An actor whose turn holds the loop past the slice, then runs `after` in that turn. */
function hog(after: () => void): Behavior<null, { n: number }> {
  return {
    kind: 'hog',
    init: () => null,
    receive(st) {
      const until = performance.now() + SLICE_MS + 10;
      while (performance.now() < until) { /* a slice of host turns */ }
      after();
      return st;
    },
  };
}

// Serial: the hog holds the loop.
test.serial('capacity hand-off - a freed slot reaches the next waiter before the next task, even once the slice of turns is spent', async (t) => {
  const { system, holder, granted, queued, failures } = await oneNode(t, 1);
  const [first, second] = [holder('default/h1'), holder('default/h2')];
  first.acquire();
  await waitFor(() => granted(first), 5_000, 'h1 granted');
  second.acquire();
  await waitFor(() => queued(second), 5_000, 'h2 queued');
  let grantedByNextTask: boolean | null = null;
  // As a provision that ends in the timers phase after a full slice of host turns frees its slot.
  const h = spawn(system, 'hog', hog(() => {
    setImmediate(() => (grantedByNextTask = granted(second)));
    first.release();
  }));
  tell(h, { n: 0 });
  await waitFor(() => grantedByNextTask !== null, 5_000, 'the next task');
  t.true(grantedByNextTask, 'h2 heard slotGranted in the task that freed the slot');
  t.deepEqual(failures, []);
});

test('capacity hand-off - a release that arrives while the broker awaits a write is served by that turn, with the acquires told meanwhile', async (t) => {
  const { store, holder, granted, failures } = await oneNode(t, 2);
  const [h1, h2, h3] = [holder('default/h1'), holder('default/h2'), holder('default/h3')];
  h1.acquire();
  await waitFor(() => granted(h1), 5_000, 'h1 granted');
  // h2's grant is being written: the broker's turn awaits KV.
  store.close();
  h2.acquire();
  await waitFor(() => store.waiting() === 1, 5_000, 'the write of h2 grant to wait');
  h3.acquire();
  h1.release();
  let atNextTask: { h2: boolean; h3: boolean } | null = null;
  // Let the release and h3's acquire reach the broker's mailbox before the write lands.
  await Promise.resolve();
  await Promise.resolve();
  await Promise.resolve();
  setImmediate(() => (atNextTask = { h2: granted(h2), h3: granted(h3) }));
  store.open();
  await waitFor(() => atNextTask !== null, 5_000, 'the next task');
  t.deepEqual(atNextTask, { h2: true, h3: true }, 'h1 slot went to h3 before the broker yielded to nact');
  t.deepEqual(failures, []);
});
