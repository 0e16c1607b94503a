// How long a host has been in its state, as a node that takes it over reports it. A shard that
// moves (a node stopped, killed or restarted) gives its hosts to actors that have only just read
// them: `hosts` (IN STATE), `inspect` ("provisioned for ..."), the page and `metalfleet top`
// (throughput: hosts that reached provisioned in the last 10 s) must read the time from the
// host's status, not from when the new owner first looked. Before, every moved host showed a few
// seconds in its state, and top counted a cluster's whole moved fleet as just provisioned.
import test from 'ava';
import { FleetStats } from '../../src/node/index.ts';
import { viewBmhStatus } from '../../src/machines/bmh/index.ts';
import type { BareMetalHostStatus } from '../../src/api/index.ts';
import { bmh, secret, startTestNode } from '../support/node.ts';
import { waitFor } from '../support/wait.ts';

const status = (state: string, history: BareMetalHostStatus['operationHistory']): BareMetalHostStatus => ({
  operationalStatus: 'OK', errorType: '', errorMessage: '', errorCount: 0, poweredOn: true,
  provisioning: { state: state as BareMetalHostStatus['provisioning']['state'], ID: 'x' }, provisioningFailCount: 0,
  ...(history ? { operationHistory: history } : {}),
});

test('state since - a new owner\'s first look at a provisioned host keeps when it was provisioned, as its status records it', (t) => {
  const now = Date.parse('2026-12-05T12:00:00.000Z');
  const stats = new FleetStats(() => now);
  const view = viewBmhStatus(status('provisioned', {
    provision: { start: '2026-12-05T11:00:00.000Z', end: '2026-12-05T11:10:00.000Z' },
  }));
  stats.changed({ kind: 'BareMetalHost', key: 'lab/a', from: null, to: 'provisioned', view }, 1);
  t.is(stats.hosts.get('lab/a')?.since, Date.parse('2026-12-05T11:10:00.000Z'));
  // An operation's state from its start; one the status cannot date stays "since this look".
  stats.changed({ kind: 'BareMetalHost', key: 'lab/b', from: null, to: 'provisioning', view: viewBmhStatus(status('provisioning', { provision: { start: '2026-12-05T11:58:00.000Z' } })) }, 1);
  t.is(stats.hosts.get('lab/b')?.since, Date.parse('2026-12-05T11:58:00.000Z'));
  stats.changed({ kind: 'BareMetalHost', key: 'lab/c', from: null, to: 'available', view: viewBmhStatus(status('available', undefined)) }, 1);
  t.is(stats.hosts.get('lab/c')?.since, now);
  // A stamp from a clock ahead of this node's is never a negative time in the state.
  stats.changed({ kind: 'BareMetalHost', key: 'lab/d', from: null, to: 'provisioned', view: viewBmhStatus(status('provisioned', { provision: { end: '2026-12-05T12:05:00.000Z' } })) }, 1);
  t.is(stats.hosts.get('lab/d')?.since, now);
});

test('state since - a node that takes over a provisioned host reports its time in the state from the status, in hosts and inspect', async (t) => {
  const first = await startTestNode();
  t.true((await first.store.applyObjects([secret(), bmh('moved-1')])).ok);
  await waitFor(() => first.node.stats.count('provisioned') === 1, 10_000, 'provisioned');
  const provisionedAt = Date.now();
  await first.node.stop();
  // Time passes before anyone takes the host over (a lease TTL, a restart).
  await new Promise((r) => setTimeout(r, 1_500));
  const again = await startTestNode({ kv: first.substrate.memoryKv!, objects: [secret()] });
  t.teardown(() => again.node.stop());
  await waitFor(() => again.node.stats.hosts.get('lab/moved-1')?.state === 'provisioned', 10_000, 'the new owner drives the host');
  const tookOverAt = Date.now();
  const [row] = await again.node.introspection.hosts({});
  t.is(row?.state, 'provisioned');
  t.true((row?.stateSinceMs ?? 0) >= tookOverAt - provisionedAt, `hosts says ${row?.stateSinceMs} ms in provisioned; it has been ${tookOverAt - provisionedAt} ms`);
  const inspected = await again.node.introspection.inspect('lab/moved-1');
  t.true(inspected.ok);
  if (inspected.ok) t.true(inspected.host.stateSinceMs >= tookOverAt - provisionedAt, `inspect says ${inspected.host.stateSinceMs} ms`);
});
