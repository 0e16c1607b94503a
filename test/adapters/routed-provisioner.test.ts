import test from 'ava';
import { startLocalNode } from '../support/local-node.ts';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { createRoutedProvisioner } from '../../src/adapters/routed/index.ts';
import { openLocalStore } from '../../src/adapters/store/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import { waitFor } from '../support/wait.ts';
import { bmh, secret } from '../support/node.ts';

test('routed - each backend is its own capacity pool with its own limit', async (t) => {
  const east = createFixtureProvisioner({ pool: 'ironic:http://east:6385', latencyMs: { provision: 10, inspect: 3 }, demoBehaviours: false });
  const west = createFixtureProvisioner({ pool: 'ironic:http://west:6385', latencyMs: { provision: 10, inspect: 3 }, demoBehaviours: false });
  const provisioner = createRoutedProvisioner({ routes: new Map([['east', east], ['west', west]]), label: 'metalfleet.io/ironic' });
  const substrate = memorySubstrate();
  const store = await openLocalStore(substrate.transport);
  const node = await startLocalNode({
    name: 'routed-test', shardCount: 8, machine: DEFAULT_MACHINE_CONFIG,
    capacity: { limits: { 'ironic:http://east:6385': 2, 'ironic:http://west:6385': 4 }, defaultLimit: 1, ttlMs: 30_000 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 10, maxMs: 100 } }, askTimeoutMs: 2_000,
  }, { store: store.resources }, { provisioner }, {}, substrate);
  const labelled = (name: string, site: string) => {
    const o = bmh(name) as { metadata: Record<string, unknown> };
    o.metadata['labels'] = { 'metalfleet.io/ironic': site };
    return o;
  };
  const hosts = [...Array.from({ length: 10 }, (_, i) => labelled(`e-${i}`, 'east')), ...Array.from({ length: 12 }, (_, i) => labelled(`w-${i}`, 'west')), labelled('lost', 'north')];
  t.true((await store.applyObjects([secret(), ...hosts])).ok);
  await waitFor(() => node.stats.count('provisioned') === 22 && node.stats.hosts.get('lab/lost')?.errorType === 'registration error', 20_000, 'all provisioned');
  const lost = await node.snapshot('lab/lost');
  await node.stop();
  t.is(east.maxBusy, 2);
  t.is(west.maxBusy, 4);
  t.is(east.totals().provision, 10);
  t.is(west.totals().provision, 12);
  t.regex(lost?.status.errorMessage ?? '', /label metalfleet\.io\/ironic=north names no configured backend \(known: east, west\)/);
});
