import test from 'ava';
import type { InformerStatus } from '../../src/adapters/kube/adapter-actor.ts';
import { adapterBehavior } from '../../src/adapters/kube/adapter-actor.ts';
import type { InformerFactory, InformerSink } from '../../src/adapters/kube/informer.ts';
import { ResourceCache } from '../../src/adapters/kube/resource-cache.ts';
import type { ResourceName } from '../../src/adapters/kube/resources.ts';
import { RESOURCES } from '../../src/adapters/kube/resources.ts';
import { createManualClock, spawn, startSystem, stop } from '../../src/actors/runtime/index.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { waitFor } from '../support/wait.ts';

// Informers that do what the test says: each start() either lists (and stays up) or fails.
class FakeInformers {
  readonly sinks = new Map<ResourceName, InformerSink>();
  readonly starts = new Map<ResourceName, number>();
  readonly stops = new Map<ResourceName, number>();
  failNextStart = new Set<ResourceName>();
  factory: InformerFactory = (resource, sink) => {
    const name = resource.name;
    this.sinks.set(name, sink);
    return {
      start: async () => {
        this.starts.set(name, (this.starts.get(name) ?? 0) + 1);
        sink.connected();
        if (this.failNextStart.delete(name)) sink.failed(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
      },
      stop: async () => {
        this.stops.set(name, (this.stops.get(name) ?? 0) + 1);
      },
    };
  };
}

function start(informers: FakeInformers, resources: ResourceName[] = ['BareMetalHost', 'Secret']) {
  const clock = createManualClock(1_000);
  const system = startSystem({ clock, onError: () => undefined });
  const caches = Object.fromEntries(resources.map((r) => [r, new ResourceCache(RESOURCES[r], silentLogger)])) as Record<ResourceName, ResourceCache>;
  const status = new Map<ResourceName, InformerStatus>();
  let synced = 0;
  const ref = spawn(system, 'kube-adapter', adapterBehavior({
    resources, caches, informers: informers.factory, clock, random: () => 1, log: silentLogger, status, onSynced: () => { synced += 1; },
  }));
  return { clock, system, caches, status, ref, synced: () => synced };
}

test('adapter actor - synced once every informer has listed; informer events land in the caches', async (t) => {
  const informers = new FakeInformers();
  const a = start(informers);
  await waitFor(() => a.synced() === 1, 2_000, 'synced');
  informers.sinks.get('BareMetalHost')!.event('add', { metadata: { name: 'h1', namespace: 'lab', resourceVersion: '5' }, spec: {} });
  await waitFor(() => a.caches.BareMetalHost.size === 1, 2_000, 'host cached');
  t.deepEqual([...a.status.values()].map((s) => [s.resource, s.phase, s.synced]), [['BareMetalHost', 'watching', true], ['Secret', 'watching', true]]);
  a.system.stop();
});

test('adapter actor - a failed informer restarts after a backoff that grows, and counts errors and restarts', async (t) => {
  const informers = new FakeInformers();
  informers.failNextStart.add('Secret');
  const a = start(informers);
  await waitFor(() => a.status.get('Secret')?.phase === 'backoff', 2_000, 'backoff');
  t.is(a.synced(), 0, 'not synced while the Secret informer has not listed');
  t.is(a.status.get('Secret')?.errors, 1);
  const downSince = a.status.get('Secret')?.downSince;
  t.is(typeof downSince, 'number', 'down since its first failure');
  // random() = 1: the full delay, 200 ms for the first failure.
  a.clock.advance(199);
  await new Promise((resolve) => setImmediate(resolve));
  t.is(informers.starts.get('Secret'), 1);
  informers.failNextStart.add('Secret');
  a.clock.advance(1);
  await waitFor(() => informers.starts.get('Secret') === 2 && a.status.get('Secret')?.errors === 2, 2_000, 'second start failed');
  t.is(a.status.get('Secret')?.downSince, downSince, 'a second failure keeps the first failure\'s time');
  a.clock.advance(399);
  await new Promise((resolve) => setImmediate(resolve));
  t.is(informers.starts.get('Secret'), 2, 'the second backoff is twice as long');
  a.clock.advance(1);
  await waitFor(() => a.synced() === 1, 2_000, 'synced after the third start');
  t.like(a.status.get('Secret'), { phase: 'watching', synced: true, errors: 2, restarts: 2, downSince: null });
  t.is(a.status.get('Secret')?.lastError, 'watching secrets: connection refused: nothing listens at the API server\'s address (ECONNREFUSED); is the API server running, and is the kubeconfig\'s server address right?');
  a.system.stop();
});

test('adapter actor - a watch that drops mid-stream is started again (resuming is the informer\'s)', async (t) => {
  const informers = new FakeInformers();
  const a = start(informers, ['BareMetalHost']);
  await waitFor(() => a.synced() === 1);
  informers.sinks.get('BareMetalHost')!.failed(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
  await waitFor(() => a.status.get('BareMetalHost')?.phase === 'backoff');
  a.clock.advance(200);
  await waitFor(() => a.status.get('BareMetalHost')?.phase === 'watching');
  t.is(informers.starts.get('BareMetalHost'), 2);
  t.is(a.synced(), 1, 'synced is announced once');
  a.system.stop();
});

test('adapter actor - a watch reconnecting in a loop is stopped and backed off', async (t) => {
  const informers = new FakeInformers();
  const a = start(informers, ['BareMetalHost']);
  await waitFor(() => a.synced() === 1);
  for (let i = 0; i < 25; i++) informers.sinks.get('BareMetalHost')!.connected();
  await waitFor(() => a.status.get('BareMetalHost')?.phase === 'backoff');
  t.is(informers.stops.get('BareMetalHost'), 1);
  t.regex(a.status.get('BareMetalHost')?.lastError ?? '', /reconnected 20 times/);
  a.system.stop();
});

test('adapter actor - stopping the actor stops its informers and their late callbacks are ignored', async (t) => {
  const informers = new FakeInformers();
  const a = start(informers, ['BareMetalHost']);
  await waitFor(() => a.synced() === 1);
  stop(a.ref);
  t.is(informers.stops.get('BareMetalHost'), 1);
  t.is(a.status.get('BareMetalHost')?.phase, 'stopped');
  informers.sinks.get('BareMetalHost')!.event('add', { metadata: { name: 'late', namespace: 'lab' } });
  await new Promise((resolve) => setImmediate(resolve));
  t.is(a.caches.BareMetalHost.size, 0);
  a.system.stop();
});
