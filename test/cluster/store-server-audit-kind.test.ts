// The audit could not tell which kind an apply or a delete was for: apply records kept the kind
// only as their command, delete records `command: "delete"` and nothing else, and the reader kept
// every record without a kind for every --kind, so `audit --kind MaasCluster` listed
// `apply BareMetalHost fleet/host-7`, and `delete maasmachine fleet/host-8`, printed
// `delete delete fleet/host-8`, showed under `--kind BareMetalHost`. Now both carry the object's
// kind, the line names it, and --kind filters on it; records of older nodes without a kind are
// still shown (an old apply by its command, which was its kind). `--host` takes the KIND/NS/NAME
// form the lines print (`maasmachine/fleet/host-7`), as `metalfleet host` does.
import test from 'ava';
import { subjects } from '../../src/bus/index.ts';
import { readAudit, type AuditRecord } from '../../src/security/index.ts';
import { lines, metalfleet } from '../cli/run.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { hostYaml, maasMachineYaml, storeWorld, type StoreWorld } from './store-world.ts';

if (!natsServerInstalled()) test('store audit kind - nats-server is installed', (t) => t.fail('nats-server is missing: these tests need a real server'));

// What a node of the version before kinds wrote for an apply and a delete.
function oldRecord(action: 'apply' | 'delete', command: string, host: string): AuditRecord {
  return {
    at: new Date().toISOString(), node: 'old-node', action, command, host, requestId: null,
    caller: { kind: 'signed', signer: `U${'A'.repeat(55)}`, name: 'olivia', role: 'operator' }, signedAt: null, outcome: 'applied', code: null, reason: null,
  };
}

async function put(w: StoreWorld, record: AuditRecord): Promise<void> {
  const ack = JSON.parse(new TextDecoder().decode(await w.client.request(subjects().audit(record.action), new TextEncoder().encode(JSON.stringify(record)), { timeoutMs: 5_000 }))) as { error?: unknown };
  if (ack.error) throw new Error(JSON.stringify(ack.error));
}

test('store audit kind - apply and delete records carry the object\'s kind, the line names it, and --kind and --host KIND/NS/NAME filter on it', async (t) => {
  const w = await storeWorld(t);
  const file = await w.file('fleet.yaml', hostYaml('host-7'), hostYaml('host-8'), maasMachineYaml('host-7'), maasMachineYaml('host-8'));
  const applied = await w.mf('apply', '-f', file);
  t.is(applied.code, 0, applied.stderr);
  const deleted = await w.mf('delete', 'maasmachine', 'fleet/host-8');
  t.is(deleted.code, 0, deleted.stderr);
  const missing = await w.mf('delete', 'maasmachine', 'fleet/host-8');
  t.is(missing.code, 1);
  const hostDeleted = await w.mf('delete', 'host', 'fleet/host-7');
  t.is(hostDeleted.code, 0, hostDeleted.stderr);
  await put(w, oldRecord('apply', 'MaasMachine', 'fleet/host-8'));
  await put(w, oldRecord('delete', 'delete', 'fleet/host-8'));

  const all = await readAudit(w.client, subjects());
  t.deepEqual(all.map((r) => [r.node, r.action, r.command, r.host, r.kind, r.outcome]), [
    ['node-a', 'apply', 'BareMetalHost', 'fleet/host-7', 'BareMetalHost', 'applied'],
    ['node-a', 'apply', 'BareMetalHost', 'fleet/host-8', 'BareMetalHost', 'applied'],
    ['node-a', 'apply', 'MaasMachine', 'fleet/host-7', 'MaasMachine', 'applied'],
    ['node-a', 'apply', 'MaasMachine', 'fleet/host-8', 'MaasMachine', 'applied'],
    ['node-a', 'delete', 'delete', 'fleet/host-8', 'MaasMachine', 'applied'],
    ['node-a', 'delete', 'delete', 'fleet/host-8', 'MaasMachine', 'refused'],
    ['node-a', 'delete', 'delete', 'fleet/host-7', 'BareMetalHost', 'applied'],
    ['old-node', 'apply', 'MaasMachine', 'fleet/host-8', undefined, 'applied'],
    ['old-node', 'delete', 'delete', 'fleet/host-8', undefined, 'applied'],
  ]);

  const shown = async (...args: string[]): Promise<string[]> => {
    const r = await metalfleet('audit', '--nats', w.server.url, '--json', ...args);
    t.is(r.code, 0, r.stderr);
    return lines(r.stdout).map((l) => {
      const r = JSON.parse(l) as AuditRecord;
      return `${r.node} ${r.action} ${r.kind ?? '-'} ${r.host} ${r.outcome}`;
    });
  };
  // No MaasCluster was applied or deleted: only the old delete, whose kind cannot be told.
  t.deepEqual(await shown('--kind', 'MaasCluster', '--since', '1h'), ['old-node delete - fleet/host-8 applied']);
  t.deepEqual(await shown('--kind', 'BareMetalHost'), [
    'node-a apply BareMetalHost fleet/host-7 applied',
    'node-a apply BareMetalHost fleet/host-8 applied',
    'node-a delete BareMetalHost fleet/host-7 applied',
    'old-node delete - fleet/host-8 applied',
  ]);
  const maas = [
    'node-a apply MaasMachine fleet/host-8 applied',
    'node-a delete MaasMachine fleet/host-8 applied',
    'node-a delete MaasMachine fleet/host-8 refused',
    'old-node apply - fleet/host-8 applied',
    'old-node delete - fleet/host-8 applied',
  ];
  t.deepEqual(await shown('--host', 'fleet/host-8', '--kind', 'MaasMachine'), maas);
  // The form the lines print a host command's target in, as `metalfleet host` takes it.
  t.deepEqual(await shown('--host', 'maasmachine/fleet/host-8'), maas);
  t.deepEqual(await shown('--host', 'MaasMachine/fleet/host-8', '--kind', 'maasmachine'), maas);
  t.deepEqual(await shown('--host', 'bmh/fleet/host-7'), ['node-a apply BareMetalHost fleet/host-7 applied', 'node-a delete BareMetalHost fleet/host-7 applied']);

  const text = await metalfleet('audit', '--nats', w.server.url, '--host', 'maasmachine/fleet/host-8');
  t.is(text.code, 0, text.stderr);
  const out = lines(text.stdout);
  t.is(out.length, 5, text.stdout);
  t.regex(out[0] ?? '', / {2}apply MaasMachine {2}fleet\/host-8 {2}applied$/);
  t.regex(out[1] ?? '', / {2}delete MaasMachine {2}fleet\/host-8 {2}applied$/);
  t.regex(out[2] ?? '', / {2}delete MaasMachine {2}fleet\/host-8 {2}refused notFound: MaasMachine fleet\/host-8 not found$/);
  t.regex(out[4] ?? '', / {2}delete {2}fleet\/host-8 {2}applied$/, 'an old delete: no "delete delete"');
  t.notRegex(text.stdout, /delete delete/);

  const clash = await metalfleet('audit', '--nats', w.server.url, '--host', 'maasmachine/fleet/host-8', '--kind', 'BareMetalHost');
  t.is(clash.code, 2);
  t.regex(clash.stderr, /--host "maasmachine\/fleet\/host-8" is a MaasMachine, but --kind says BareMetalHost/);
  const unknown = await metalfleet('audit', '--nats', w.server.url, '--host', 'pod/fleet/host-8');
  t.is(unknown.code, 2);
  t.regex(unknown.stderr, /--host "pod\/fleet\/host-8": unknown kind "pod"/);
  const bad = await metalfleet('audit', '--nats', w.server.url, '--host', 'host-8');
  t.is(bad.code, 2);
  t.regex(bad.stderr, /--host: .*<namespace>\/<name>/);
});
