// A host record that does not parse could be neither applied over nor deleted through a node,
// though the store's own error says "apply the BareMetalHost again or delete its key": the store
// server's update check read the stored host past the cache and threw on the bad record before
// the write that would replace it (`nothing was applied`), and delete was refused the same way.
// Now apply writes over it (a compare-and-set on its revision) and delete takes its key away,
// for a host and for a MaasMachine, each audited.
import test from 'ava';
import { hostKvKey } from '../../src/adapters/store/nats-keys.ts';
import { NATS_HOSTS_BUCKET, NATS_STATUS_BUCKET } from '../../src/adapters/store/nats-store.ts';
import { subjects } from '../../src/bus/index.ts';
import { OBJECTS_BUCKET } from '../../src/machines/buckets.ts';
import { readAudit } from '../../src/security/index.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { makeHost } from '../support/bmh.ts';
import { waitUntil } from '../support/wait.ts';
import { hostYaml, maasMachineYaml, storeWorld } from './store-world.ts';

if (!natsServerInstalled()) test('store unreadable - nats-server is installed', (t) => t.fail('nats-server is missing: these tests need a real server'));

const GARBAGE = Uint8Array.from([0xc1, 0xc1, 0xff, ...Buffer.from('not a record')]);

test('store unreadable - apply of a BareMetalHost replaces its unreadable record, and delete removes one; both audited', async (t) => {
  const w = await storeWorld(t);
  const file = await w.file('h8.yaml', hostYaml('host-8'));
  const first = await w.mf('apply', '-f', file);
  t.is(first.code, 0, first.stderr);
  const specs = await w.bucket(NATS_HOSTS_BUCKET);
  const statuses = await w.bucket(NATS_STATUS_BUCKET);
  const kvKey = hostKvKey('fleet/host-8');
  await w.store.writeStatus('fleet/host-8', makeHost({ status: { provisioning: { state: 'provisioned', ID: 'n-8' }, poweredOn: true } }).status!);
  const bad = await specs.put(kvKey, GARBAGE);
  // The node has seen it: its store says the record does not parse.
  await waitUntil(() => w.store.recordProblem('fleet/host-8') !== undefined, 5_000, 'the node sees the bad record');

  const again = await w.mf('apply', '-f', file);
  t.is(again.code, 0, again.stderr);
  t.notRegex(again.stderr, /does not parse|nothing was applied/);
  t.regex(again.stdout, /baremetalhost fleet\/host-8 (created|configured)/);
  const now = await specs.get(kvKey);
  t.true((now?.revision ?? 0) > bad, 'written over the bad revision');
  t.is((await w.store.getFresh('fleet/host-8'))?.spec.bmc?.credentialsName, 'host-8-bmc', 'it reads again');
  await waitUntil(() => w.store.recordProblem('fleet/host-8') === undefined, 5_000, 'the problem is gone');

  // Bad again: delete takes the key away (its finalizers cannot be read to wait for).
  await specs.put(kvKey, GARBAGE);
  await waitUntil(() => w.store.recordProblem('fleet/host-8') !== undefined, 5_000, 'the node sees the bad record again');
  const deleted = await w.mf('delete', 'host', 'fleet/host-8');
  t.is(deleted.code, 0, deleted.stderr);
  t.notRegex(deleted.stderr, /does not parse/);
  t.is(await specs.get(kvKey), null, 'the key is gone');
  t.is(await statuses.get(kvKey), null, 'its status too');
  t.is(await w.store.getFresh('fleet/host-8'), undefined);
  const missing = await w.mf('delete', 'host', 'fleet/host-8');
  t.is(missing.code, 1);
  t.regex(missing.stderr, /not found/);

  const audit = (await readAudit(w.client, subjects(), { host: 'fleet/host-8' })).map((r) => [r.action, r.kind, r.outcome, r.code]);
  t.deepEqual(audit, [
    ['apply', 'BareMetalHost', 'applied', null],
    ['apply', 'BareMetalHost', 'applied', null],
    ['delete', 'BareMetalHost', 'applied', null],
    ['delete', 'BareMetalHost', 'refused', 'notFound'],
  ]);
});

test('store unreadable - a MaasMachine whose record does not parse is applied over and deleted through the node', async (t) => {
  const w = await storeWorld(t);
  const file = await w.file('m8.yaml', maasMachineYaml('host-8'));
  t.is((await w.mf('apply', '-f', file)).code, 0);
  const objects = await w.bucket(OBJECTS_BUCKET);
  const kvKey = `MaasMachine.${hostKvKey('fleet/host-8')}`;
  await waitUntil(async () => (await objects.get(kvKey)) !== null, 5_000, 'the MaasMachine is stored');
  await objects.put(kvKey, GARBAGE);

  const applied = await w.mf('apply', '-f', file);
  t.is(applied.code, 0, applied.stderr);
  t.regex(applied.stdout, /maasmachine fleet\/host-8/);

  await objects.put(kvKey, GARBAGE);
  const deleted = await w.mf('delete', 'maasmachine', 'fleet/host-8');
  t.is(deleted.code, 0, deleted.stderr);
  t.is(await objects.get(kvKey), null, 'the key is gone');

  const audit = (await readAudit(w.client, subjects(), { host: 'fleet/host-8', kind: 'MaasMachine' })).map((r) => [r.action, r.kind, r.outcome]);
  t.deepEqual(audit, [['apply', 'MaasMachine', 'applied'], ['apply', 'MaasMachine', 'applied'], ['delete', 'MaasMachine', 'applied']]);
});
