// Fleet stats as the change stream feeds them: per kind, per state, whatever the order of reports.
import test from 'ava';
import type { MachineChange } from '../../src/actors/machine/index.ts';
import { FleetStats } from '../../src/node/index.ts';

const change = (kind: string, key: string, from: string | null, to: string | null, o: { power?: 'on' | 'off'; error?: string } = {}): MachineChange => ({
  kind, key, from, to,
  view: { state: to ?? from ?? '', power: o.power ?? 'off', operationalStatus: o.error ? 'error' : 'OK', error: o.error ?? null, errorType: o.error ? 'provisioning error' : '' },
});

test('fleet stats - a BareMetalHost and a MaasMachine of one name are two objects, each counted by its own kind and state', (t) => {
  let now = 1_000;
  const stats = new FleetStats(() => now);
  stats.changed(change('BareMetalHost', 'lab/a', null, 'registering'), 3);
  stats.changed(change('MaasMachine', 'lab/a', null, 'Pending'), 5);
  now = 2_000;
  stats.changed(change('BareMetalHost', 'lab/a', 'registering', 'inspecting'), 3);
  stats.changed(change('MaasMachine', 'lab/a', 'Pending', 'Deploying'), 5);
  t.is(stats.count('inspecting'), 1);
  t.is(stats.of('MaasMachine').count('Deploying'), 1);
  t.is(stats.of('MaasMachine').count('Pending'), 0);
  t.like(stats.of('MaasMachine').objects.get('lab/a'), { state: 'Deploying', since: 2_000, shard: 5 });
  t.is(stats.transitions, 2);
  t.deepEqual([...stats.of('MaasMachine').moves.get('Pending') ?? []], [['Deploying', 1]]);
});

test('fleet stats - a view change within a state keeps its since and counts no transition; power and error show', (t) => {
  let now = 1_000;
  const stats = new FleetStats(() => now);
  stats.changed(change('BareMetalHost', 'lab/a', null, 'provisioning'), 1);
  now = 5_000;
  stats.changed(change('BareMetalHost', 'lab/a', 'provisioning', 'provisioning', { power: 'on', error: 'image checksum mismatch' }), 1);
  t.like(stats.hosts.get('lab/a'), { state: 'provisioning', since: 1_000, poweredOn: true, errorType: 'provisioning error', error: 'image checksum mismatch' });
  t.is(stats.transitions, 0);
  t.is(stats.count('provisioning'), 1);
});

test('fleet stats - a restarted actor\'s first look (from null) replaces what the node held; gone and a dropped shard forget', (t) => {
  const stats = new FleetStats(() => 0);
  const keys: string[] = [];
  stats.onChange((key, kind) => keys.push(`${kind} ${key}`));
  stats.changed(change('BareMetalHost', 'lab/a', null, 'provisioning'), 1);
  // The actor crashed and read the host again, now provisioned: counted once, in its new state.
  stats.changed(change('BareMetalHost', 'lab/a', null, 'provisioned'), 1);
  t.is(stats.count('provisioning'), 0);
  t.is(stats.count('provisioned'), 1);
  t.is(stats.transitions, 0, 'a first look is no transition');
  stats.changed(change('BareMetalHost', 'lab/a', 'provisioned', null), 1);
  t.is(stats.count('provisioned'), 0);
  t.is(stats.goneCount, 1);
  stats.changed(change('MaasMachine', 'capi/m', null, 'Deployed'), 2);
  stats.changed(change('MaasMachine', 'capi/n', null, 'Deployed'), 4);
  stats.forgetShard(2);
  t.deepEqual([...stats.of('MaasMachine').objects.keys()], ['capi/n']);
  t.is(stats.of('MaasMachine').count('Deployed'), 1);
  t.is(stats.goneCount, 1, 'a shard moving away is not an object gone');
  t.deepEqual(keys, ['BareMetalHost lab/a', 'BareMetalHost lab/a', 'BareMetalHost lab/a', 'MaasMachine capi/m', 'MaasMachine capi/n', 'MaasMachine capi/m']);
});
