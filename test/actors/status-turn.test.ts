// One status write per turn (issue 29.5): a message and the steps its effects answer within the
// turn change status as often as they like; the store is written once, with the newest status,
// when the turn ends. Counted on the memory KV the store runs on.
import test from 'ava';
import { StatusWriter } from '../../src/actors/host/status-writer.ts';
import { machineBehavior } from '../../src/actors/machine/index.ts';
import type { MachineKind, MachineMsg } from '../../src/actors/machine/index.ts';
import { ask, createManualClock, spawn, startSystem, tell } from '../../src/actors/runtime/index.ts';
import type { ActorRef } from '../../src/actors/runtime/index.ts';
import { initialStatus, type BareMetalHostStatus, type ProvisioningState } from '../../src/api/index.ts';
import { hostKvKey } from '../../src/adapters/store/nats-keys.ts';
import { NATS_HOSTS_BUCKET, NATS_STATUS_BUCKET, openNatsStore } from '../../src/adapters/store/nats-store.ts';
import { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { hostManifest } from '../support/host-manifest.ts';
import { kvRecord } from '../support/local-store.ts';

const KEY = 'metal3/h1';

function status(state: ProvisioningState): BareMetalHostStatus {
  const s = initialStatus();
  return { ...s, provisioning: { ...s.provisioning, state } };
}

type S = { readonly state: ProvisioningState };
type E = { type: 'tick' } | { type: 'registered' };
type F = { type: 'writeStatus'; status: BareMetalHostStatus } | { type: 'register' };
type Msg = MachineMsg<never, E, ProvisioningState | null>;

// A tick registers (a status change) and calls the backend; the answer, given within the turn,
// moves on to inspecting (a second status change in the same turn).
function registeringKind(writer: () => StatusWriter, answer: 'inline' | 'awaited'): MachineKind<S, E, F, never, ProvisioningState | null, null, null> {
  return {
    actorKind: 'toy-host',
    logic: {
      kind: 'ToyHost',
      initial: () => ({ state: 'unmanaged' }),
      restore: () => ({ state: 'unmanaged' }),
      step: (s, e) => (e.type === 'tick'
        ? { state: { state: 'registering' }, effects: [{ type: 'writeStatus', status: status('registering') }, { type: 'register' }] }
        : { state: { state: 'inspecting' }, effects: [{ type: 'writeStatus', status: status('inspecting') }] }),
      view: (s) => ({ state: s.state, power: 'unknown', operationalStatus: 'OK', error: null }),
      isGone: () => false,
    },
    adapter: () => ({
      observe: (_current, wake) => ({ seen: { object: null, world: null }, events: wake === null ? [] : [wake] }),
      perform: (effect) => {
        if (effect.type === 'writeStatus') return writer().stage(effect.status);
        if (answer === 'inline') return { type: 'registered' };
        // An effect the turn awaits: a write that landed meanwhile must not take the staged status.
        return new Promise<E>((resolve) => setTimeout(() => resolve({ type: 'registered' }), 5));
      },
      turnEnded: () => writer().endTurn(),
      whenIdle: () => writer().whenIdle(),
      snapshot: (s) => s?.state ?? null,
    }),
  };
}

for (const answer of ['inline', 'awaited'] as const) {
  test(`status turn - a turn whose steps change status twice writes it once, the newest (${answer} answer)`, async (t) => {
    const kv = new MemoryKvStore();
    const store = await openNatsStore({ specs: kv.bucket(NATS_HOSTS_BUCKET), status: kv.bucket(NATS_STATUS_BUCKET) });
    t.teardown(() => store.close());
    await store.apply([hostManifest('h1')]);
    const system = startSystem({ onError: () => {} });
    t.teardown(() => system.stop());
    const clock = createManualClock(0);
    const writer = new StatusWriter(KEY, store.resources, silentLogger, clock);
    const writesBefore = kv.revisions()[NATS_STATUS_BUCKET] ?? 0;
    const ref: ActorRef<Msg> = spawn(system, 'toy', machineBehavior(KEY, registeringKind(() => writer, answer), { clock }));
    tell(ref, { type: 'tick' });
    t.is(await ask<Msg, ProvisioningState | null>(ref, (reply) => ({ type: 'snapshot', reply }), 1_000), 'inspecting');
    await writer.whenIdle();
    t.is((kv.revisions()[NATS_STATUS_BUCKET] ?? 0) - writesBefore, 1, 'status bucket writes in the turn');
    t.is(writer.writes, 1);
    const stored = kvRecord((await kv.bucket(NATS_STATUS_BUCKET).get(hostKvKey(KEY)))!.value) as { status: BareMetalHostStatus };
    t.is(stored.status.provisioning.state, 'inspecting');
  });
}

test('status turn - a status staged while a write is in flight goes out when that write lands, once', async (t) => {
  const kv = new MemoryKvStore();
  const store = await openNatsStore({ specs: kv.bucket(NATS_HOSTS_BUCKET), status: kv.bucket(NATS_STATUS_BUCKET) });
  t.teardown(() => store.close());
  await store.apply([hostManifest('h1')]);
  const writer = new StatusWriter(KEY, store.resources, silentLogger, createManualClock(0));
  const writesBefore = kv.revisions()[NATS_STATUS_BUCKET] ?? 0;
  writer.write(status('registering'));
  // The next turn stages twice while the first write is on its way.
  writer.stage(status('inspecting'));
  writer.stage(status('preparing'));
  writer.endTurn();
  await writer.whenIdle();
  t.is((kv.revisions()[NATS_STATUS_BUCKET] ?? 0) - writesBefore, 2);
  t.is((await store.getFresh(KEY))?.status?.provisioning.state, 'preparing');
});
