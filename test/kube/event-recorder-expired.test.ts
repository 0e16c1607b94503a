// An aggregated Event the API server expired (its TTL) is created again on the next occurrence.
// Occurrences already queued to patch the expired Event must then count into the new one, not
// each create yet another Event for the same thing.
import test from 'ava';
import { EventRecorder } from '../../src/adapters/kube/event-recorder.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { FakeServer } from './support/fake-client.ts';

const host = { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', namespace: 'lab', name: 'h1', uid: 'u1' };

test('events - after the aggregated Event expired, a burst of the same event makes one new Event counting them all', async (t) => {
  const server = new FakeServer();
  let now = 1_000_000;
  const recorder = new EventRecorder({ client: server.client(), log: silentLogger, component: 'metalfleet', now: () => now });
  await recorder.record(host, 'Warning', 'RegistrationError', 'BMC unreachable');
  t.is(server.events.size, 1);
  // The server's TTL removed it.
  server.events.clear();
  now += 1_000;
  await Promise.all([
    recorder.record(host, 'Warning', 'RegistrationError', 'BMC unreachable'),
    recorder.record(host, 'Warning', 'RegistrationError', 'BMC unreachable'),
    recorder.record(host, 'Warning', 'RegistrationError', 'BMC unreachable'),
  ]);
  t.is(server.events.size, 1, 'one Event for one thing that happened');
  const [event] = [...server.events.values()] as Array<{ count: number }>;
  t.is(event?.count, 3);
  t.is(recorder.failed, 0);
});
