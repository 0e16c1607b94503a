// Every kind writes its status through the one writer of the generic actor (issue 29.3): side by
// side, a BareMetalHost and a MaasMachine whose status write fails transiently get it retried
// until it lands, with no new message to the actor; and a turn that stages status twice writes it
// once, on the store each kind really runs on (the memory KV).
import test from 'ava';
import { openLocalStoreWithMaas } from '../support/maas-node.ts';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import type { LocalStore } from '../../src/adapters/store/index.ts';
import { StatusWriter as HostStatusWriter } from '../../src/actors/host/status-writer.ts';
import { hostBehavior } from '../../src/actors/host/index.ts';
import type { HostMsg, HostSnapshot } from '../../src/actors/host/index.ts';
import type { CapacityMsg } from '../../src/actors/capacity/index.ts';
import { STATUS_WRITE_RETRY, StatusWriter, TICK, statusDiffers } from '../../src/actors/machine/index.ts';
import { maasMachineBehavior } from '../../src/actors/maas/maas-machine-actor.ts';
import type { MaasMachineMsg } from '../../src/actors/maas/maas-machine-actor.ts';
import { ask, createManualClock, spawn, startSystem, tell } from '../../src/actors/runtime/index.ts';
import type { ActorRef, ManualClock } from '../../src/actors/runtime/index.ts';
import { initialStatus, nextDelay } from '../../src/api/index.ts';
import type { BareMetalHostStatus } from '../../src/api/index.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { DEFAULT_MAAS_MACHINE_CONFIG } from '../../src/machines/maas-machine/index.ts';
import type { MaasMachineState } from '../../src/machines/maas-machine/index.ts';
import type { MaasDriver, ResourceStore } from '../../src/ports/index.ts';
import { silentLogger, StoreError } from '../../src/ports/index.ts';
import { bmh } from '../support/node.ts';
import { waitFor, waitUntil } from '../support/wait.ts';

const FAILURES = 2;

/** Wraps a store so that its status write fails transiently the first `failures` times. */
function failingStatusWrites<T extends object>(store: T, failures: number): { store: T; attempts: () => number } {
  let attempts = 0;
  const wrapped = new Proxy(store, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      const bound = (value as (...args: unknown[]) => unknown).bind(target);
      if (prop !== 'writeStatus') return bound;
      return (...args: unknown[]) => {
        attempts += 1;
        if (attempts <= failures) return Promise.reject(new StoreError('the NATS store is unavailable (timeout); try again', true));
        return bound(...args);
      };
    },
  });
  return { store: wrapped, attempts: () => attempts };
}

async function openStores(): Promise<LocalStore & { objects: ResourceStore }> {
  const transport = createMemoryBus().connect('test');
  const local = await openLocalStoreWithMaas(transport);
  return local as LocalStore & { objects: ResourceStore };
}

const unused = (): never => {
  throw new Error('no backend call is expected here');
};
const driver: MaasDriver = { endpoint: 'http://maas', pool: 'maas:http://maas', run: unused, findDns: unused, createDns: unused, updateDns: unused, deleteDns: unused };

interface Subject {
  /** Spawns the real actor on a store whose status writes fail FAILURES times; tells it one wake-up. */
  start(clock: ManualClock): Promise<{ attempts: () => number; stored: () => Promise<unknown>; decided: () => Promise<unknown>; settled: () => Promise<boolean> }>;
}

const subjects: Record<'BareMetalHost' | 'MaasMachine', Subject> = {
  BareMetalHost: {
    async start(clock) {
      const local = await openStores();
      // Its BMC Secret is missing: the host decides a status, then waits quietly for the Secret.
      const applied = await local.applyObjects([bmh('h1', { credentialsName: 'absent' })]);
      if (!applied.ok) throw new Error(JSON.stringify(applied));
      const { store, attempts } = failingStatusWrites<ResourceStore>(local.resources, FAILURES);
      const system = startSystem({ onError: () => {} });
      const broker = spawn(system, 'broker', { kind: 'sink', init: () => null, receive: (s: null) => s }) as ActorRef<CapacityMsg>;
      const observer = { statusRead: () => {}, statusChanged: () => {}, warning: () => {} };
      const ref: ActorRef<HostMsg> = spawn(system, 'host', hostBehavior('lab/h1', {
        store, provisioner: createFixtureProvisioner({ latencyMs: 0, demoBehaviours: false }), broker, clock, config: DEFAULT_MACHINE_CONFIG,
        log: silentLogger, random: () => 0.5, grantTtlMs: 30_000, observer,
      }));
      tell(ref, TICK);
      const snapshot = (): Promise<HostSnapshot | null> => ask<HostMsg, HostSnapshot | null>(ref, (reply) => ({ type: 'snapshot', reply }), 1_000);
      return {
        attempts,
        stored: async () => (await local.getFresh('lab/h1'))?.status,
        decided: async () => (await snapshot())?.status,
        // Its registration call has been answered (the Secret is missing): it waits now.
        settled: async () => (await snapshot())?.inFlight === null,
      };
    },
  },
  MaasMachine: {
    async start(clock) {
      const local = await openStores();
      // Paused by its annotation: the machine decides a status (Paused) and calls nothing.
      const objects = generateMaasCluster({ controlPlane: 1, workers: 0 }).map((o) => {
        const doc = o as { kind: string; metadata: Record<string, unknown> };
        return doc.kind === 'MaasMachine' ? { ...doc, metadata: { ...doc.metadata, annotations: { 'cluster.x-k8s.io/paused': '' } } } : doc;
      });
      const applied = await local.applyObjects(objects);
      if (!applied.ok) throw new Error(JSON.stringify(applied));
      const { store, attempts } = failingStatusWrites<ResourceStore>(local.objects, FAILURES);
      const system = startSystem({ onError: () => {} });
      const broker = spawn(system, 'broker', { kind: 'sink', init: () => null, receive: (s: null) => s }) as ActorRef<CapacityMsg>;
      const key = 'capi/demo-cp-0';
      const ref: ActorRef<MaasMachineMsg> = spawn(system, 'maas-machine', maasMachineBehavior(key, {
        store, driver, broker, clock, config: DEFAULT_MAAS_MACHINE_CONFIG, log: silentLogger, grantTtlMs: 30_000,
      }));
      tell(ref, TICK);
      return {
        attempts,
        stored: async () => (await local.objects.get('MaasMachine', key))?.status,
        decided: async () => (await ask<MaasMachineMsg, MaasMachineState | null>(ref, (reply) => ({ type: 'snapshot', reply }), 1_000))?.status,
        settled: async () => true,
      };
    },
  },
};

for (const [kind, subject] of Object.entries(subjects)) {
  test(`status writer kinds - ${kind}: a status write that fails transiently is retried with the one policy and lands, with no new message`, async (t) => {
    const clock = createManualClock(0);
    const it = await subject.start(clock);
    await waitFor(() => it.attempts() === 1, 5_000, 'the first status write');
    // The actor has nothing more coming: from here on, only the writer's retry timer can write.
    await waitUntil(it.settled, 5_000, 'the actor waiting');
    const decided = await it.decided();
    t.truthy(decided);
    t.notDeepEqual(await it.stored(), decided, 'nothing landed yet');
    for (let retry = 1; retry <= FAILURES; retry++) {
      // Not one millisecond early: the wait is the policy's.
      clock.advance(nextDelay(STATUS_WRITE_RETRY, retry, () => 0) - 1);
      t.is(it.attempts(), retry);
      clock.advance(1);
      await waitFor(() => it.attempts() === retry + 1, 5_000, `status write attempt ${retry + 1}`);
    }
    await waitFor(() => it.attempts() === FAILURES + 1, 5_000, 'the write that lands');
    const decidedNow = await it.decided();
    // Read back through its schema the status comes reordered: compared as data, with the one rule.
    await waitUntil(async () => !statusDiffers(await it.stored(), decidedNow), 2_000, 'the newest status in the store');
    clock.advance(nextDelay(STATUS_WRITE_RETRY, FAILURES + 1, () => 0));
    t.is(it.attempts(), FAILURES + 1, 'once landed, it is not written again');
  });
}

// The writer each kind's actor builds, over the store that kind runs on: a turn's two statuses,
// one write of the newest.
test('status writer kinds - a turn that stages status twice writes it once, for a BareMetalHost and a MaasMachine alike', async (t) => {
  const local = await openStores();
  t.true((await local.applyObjects([bmh('h1'), ...generateMaasCluster({ controlPlane: 1, workers: 0 })])).ok);
  const clock = createManualClock(0);
  let hostWrites = 0;
  let maasWrites = 0;
  const hostStore = new Proxy<ResourceStore>(local.resources, { get: (target, p) => (p === 'writeStatus'
    ? (...a: Parameters<ResourceStore['writeStatus']>) => (hostWrites++, target.writeStatus(...a))
    : (Reflect.get(target, p, target) as unknown)) });
  const host = new HostStatusWriter('lab/h1', hostStore, silentLogger, clock);
  const maas = new StatusWriter<Record<string, unknown>>({
    key: 'capi/demo-cp-0', logField: 'maasMachine', log: silentLogger, clock,
    write: (status) => (maasWrites++, local.objects.writeStatus('MaasMachine', 'capi/demo-cp-0', status)),
  });
  const hostStatus = (state: BareMetalHostStatus['provisioning']['state']): BareMetalHostStatus => ({ ...initialStatus(), provisioning: { ...initialStatus().provisioning, state } });
  host.stage(hostStatus('registering'));
  host.stage(hostStatus('inspecting'));
  maas.stage({ ready: false, failureMessage: 'first' });
  maas.stage({ ready: false, failureMessage: 'second' });
  t.is(hostWrites + maasWrites, 0, 'nothing is written before the turn ends');
  host.endTurn();
  maas.endTurn();
  await Promise.all([host.whenIdle(), maas.whenIdle()]);
  t.is(hostWrites, 1);
  t.is(maasWrites, 1);
  t.is((await local.getFresh('lab/h1'))?.status?.provisioning.state, 'inspecting');
  t.is(((await local.objects.get('MaasMachine', 'capi/demo-cp-0'))?.status as { failureMessage?: string } | undefined)?.failureMessage, 'second');
  // The one dirty rule: a status the store already holds is not written again.
  maas.write({ ready: false, failureMessage: 'second' });
  await maas.whenIdle();
  t.is(maasWrites, 1);
});
