// `metalfleet hosts` and `inspect` list a killed node's hosts from a live node's store (NODE -).
// Their IN STATE was read from status.lastUpdated, which every status write moves: a host
// provisioned 5 minutes ago and powered off 1 minute ago showed "1m" in provisioned, while the
// node that took it over a moment later showed "5m" (it reads the operationHistory).
import test from 'ava';
import { openKvStoreOn } from '../../src/adapters/store/kv-store.ts';
import type { BareMetalHostStatus } from '../../src/api/index.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import type { NewObject } from '../../src/ports/index.ts';
import { storedHostRows } from '../../src/node/stored-host-rows.ts';
import { bmh } from '../support/node.ts';

const NOW = Date.parse('2026-12-07T10:05:00Z');

const status = (state: BareMetalHostStatus['provisioning']['state'], history: BareMetalHostStatus['operationHistory'] | undefined, lastUpdated: string): BareMetalHostStatus => ({
  operationalStatus: 'OK', errorType: '', errorMessage: '', errorCount: 0, poweredOn: false,
  provisioning: { state, ID: 'x' }, provisioningFailCount: 0, lastUpdated,
  ...(history ? { operationHistory: history } : {}),
});

test('hosts - a stored host\'s IN STATE counts from when it entered the state (operationHistory), not from its last status write', async (t) => {
  const store = await openKvStoreOn(createMemoryBus().connect('survivor'));
  t.teardown(() => store.close());
  for (const name of ['powered-off', 'provisioning', 'available']) t.is(await store.createObject('BareMetalHost', bmh(name) as NewObject), 'created');
  // Provisioned at 10:00, powered off at 10:04 (a status write).
  await store.writeStatus('BareMetalHost', 'lab/powered-off', status('provisioned', { provision: { start: '2026-12-07T09:58:00Z', end: '2026-12-07T10:00:00Z' } }, '2026-12-07T10:04:00Z'));
  await store.writeStatus('BareMetalHost', 'lab/provisioning', status('provisioning', { provision: { start: '2026-12-07T10:02:00Z' } }, '2026-12-07T10:04:30Z'));
  // A state the history does not date: its last status write, as before.
  await store.writeStatus('BareMetalHost', 'lab/available', status('available', undefined, '2026-12-07T10:03:00Z'));

  const rows = await storedHostRows(store, { backend: 'fixture', maas: false, shardCount: 1 }, [0], NOW);
  const since = (key: string) => rows.find((r) => r.key === key)?.stateSinceMs;
  t.is(since('lab/powered-off'), 5 * 60_000);
  t.is(since('lab/provisioning'), 3 * 60_000);
  t.is(since('lab/available'), 2 * 60_000);
  t.true(rows.every((r) => r.stored === true));
});
