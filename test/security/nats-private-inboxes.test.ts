// Issue 33.1 and 33.6 as a viewer would try them on the shipped configuration (deploy/nats, rendered
// by scripts/nats-dev-certs.sh) with one real node: sniffing every client's replies through
// _INBOX.>, making durable consumers, and pointing a push consumer at the nodes' store subject.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { stringify } from 'yaml';
import type { ExecutionContext } from 'ava';
import { PermissionViolationError } from '@nats-io/nats-core';
import type { Msg, NatsConnection } from '@nats-io/nats-core';
import { startFixtureServer } from '../../src/adapters/fixture/remote/index.ts';
import type { FixtureServer } from '../../src/adapters/fixture/remote/index.ts';
import { openNatsStoreOn } from '../../src/adapters/store/nats-store.ts';
import type { NatsStore } from '../../src/adapters/store/nats-store.ts';
import { connectNats, subjects } from '../../src/bus/index.ts';
import { listNodes } from '../../src/cluster/introspect/index.ts';
import { STORE_QUEUE } from '../../src/cluster/commands/store-server.ts';
import type { Transport } from '../../src/ports/index.ts';
import type { BareMetalHost } from '../../src/api/index.ts';
import { startSecureNats } from '../support/secure-nats.ts';
import type { SecureNats } from '../support/secure-nats.ts';
import { cliAs, makeSigningKeys, startSecureNode } from '../support/secure-node.ts';
import type { SecureNodeProcess, SigningKeys } from '../support/secure-node.ts';
import { waitUntil } from '../support/wait.ts';

const SHARDS = 4;
const HOST = 'fleet/inbox-0';
const AUDIT_STREAM = 'mf-audit';
const enc = (o: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(o));
const dec = (d: Uint8Array): Record<string, unknown> => JSON.parse(new TextDecoder().decode(d)) as Record<string, unknown>;

interface World {
  nats: SecureNats;
  fixture: FixtureServer;
  node: SecureNodeProcess;
  keys: SigningKeys;
  /** The node's view, to see what the attacks changed. */
  transport: Transport;
  store: NatsStore;
}

let world: World | undefined;
const cleanups: Array<() => Promise<unknown>> = [];

function w(): World {
  if (!world) throw new Error('the secure cluster did not start (see the before hook)');
  return world;
}

function host(): BareMetalHost {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name: 'inbox-0', namespace: 'fleet' },
    spec: {
      online: true,
      bmc: { address: 'ipmi://10.0.9.1', credentialsName: 'bmc' },
      bootMACAddress: '52:54:00:00:09:01',
      image: { url: 'http://images/os.qcow2', checksum: 'abc', checksumType: 'sha256' },
      inspectionMode: 'disabled',
    },
  } as BareMetalHost;
}

test.before(async () => {
  const nats = await startSecureNats();
  cleanups.push(() => nats.dispose());
  const fixture = await startFixtureServer({ options: { latencyMs: 5, demoBehaviours: false } });
  cleanups.push(() => fixture.close());
  const keys = await makeSigningKeys(nats.dir);
  const node = await startSecureNode(nats, { name: 'a', fixtureUrl: fixture.url, shards: SHARDS, limit: 2, keys });
  cleanups.push(() => node.stop());
  const transport = await connectNats({ servers: nats.url, name: 'test-node-client', auth: { user: 'node', pass: nats.passwords.node }, tls: nats.tlsFor('node') });
  cleanups.push(() => transport.close());
  const store = await openNatsStoreOn(transport);
  cleanups.push(() => store.close());
  world = { nats, fixture, node, keys, transport, store };
  // Applied by the operator, signed, so the audit stream holds a record a viewer could try to
  // push somewhere.
  const file = join(nats.dir, 'hosts.yaml');
  await writeFile(file, stringify(host()));
  const applied = await cliAs(nats, 'operator', ['apply', '-f', file], { keys });
  if (applied.code !== 0) throw new Error(`apply as operator failed: ${applied.stderr}`);
  await waitUntil(async () => (await store.getFresh(HOST))?.status?.provisioning.state === 'provisioned', 60_000, 'the node provisions the host', 100);
});

test.after.always(async () => {
  for (const undo of cleanups.reverse()) await undo().catch(() => undefined);
});

async function connectAs(t: ExecutionContext, role: 'operator' | 'viewer'): Promise<NatsConnection> {
  const nc = await w().nats.connect(role);
  t.teardown(() => nc.close());
  return nc;
}

/** A JetStream API request the server must refuse outright (a publish permission violation). */
async function refused(t: ExecutionContext, nc: NatsConnection, subject: string, body: unknown): Promise<void> {
  const error = await t.throwsAsync(nc.request(subject, enc(body), { timeout: 5_000 }));
  const violation = error instanceof PermissionViolationError ? error : error?.cause;
  t.true(violation instanceof PermissionViolationError, `${subject}: expected a permission violation, got ${String(error)}`);
  await w().nats.waitForViolation('viewer', subject);
}

test('private inboxes - a viewer sniffing _INBOX.> is refused and receives none of the replies the operator and the node get', async (t) => {
  const { nats } = w();
  const viewer = await connectAs(t, 'viewer');
  const sniffed: Msg[] = [];
  const sniffing = ['_INBOX.>', '_INBOX_operator.>', '_INBOX_node.>', '>'];
  for (const subject of sniffing) {
    viewer.subscribe(subject, {
      callback: (err, m) => {
        // The refusal itself comes to the callback as an error; only a message would be a leak.
        if (!err) sniffed.push(m);
      },
    });
  }
  for (const subject of sniffing) await nats.waitForViolation('viewer', subject, 'Subscription');

  // Replies the operator asked for (introspection by service discovery, the audit read) and what
  // the node itself gets on its own inbox (KV watches, capacity) all flow meanwhile.
  const operator = await connectNats({ servers: nats.url, name: 'operator-client', auth: { user: 'operator', pass: nats.passwords.operator }, tls: nats.tlsFor('operator') });
  t.teardown(() => operator.close());
  t.deepEqual((await listNodes(operator)).map((n) => n.node), ['a'], 'the operator gets its replies');
  const hosts = await cliAs(nats, 'operator', ['hosts']);
  t.is(hosts.code, 0, hosts.stderr);
  t.true(hosts.stdout.includes('inbox-0'));
  await viewer.flush();
  t.deepEqual(sniffed.map((m) => m.subject), [], 'the viewer saw none of it');
  // Its own replies still reach it: the viewer's prefix is its own.
  t.deepEqual((await listNodes(await readerAs(t, 'viewer'))).map((n) => n.node), ['a']);
});

test('private inboxes - an operator may not subscribe to the viewer\'s or the node\'s inbox either', async (t) => {
  const operator = await connectAs(t, 'operator');
  for (const subject of ['_INBOX_viewer.>', '_INBOX_node.>', '_INBOX.>']) {
    operator.subscribe(subject, { callback: () => undefined });
    await w().nats.waitForViolation('operator', subject, 'Subscription');
  }
  t.pass();
});

async function readerAs(t: ExecutionContext, role: 'viewer' | 'operator'): Promise<Transport> {
  const { nats } = w();
  const transport = await connectNats({ servers: nats.url, name: `reader-${role}`, auth: { user: role, pass: nats.passwords[role] }, tls: nats.tlsFor(role) });
  t.teardown(() => transport.close());
  return transport;
}

test('consumers - a viewer cannot make a durable consumer by any of the create subjects, nor a consumer on the membership bucket', async (t) => {
  const viewer = await connectAs(t, 'viewer');
  const durable = { stream_name: AUDIT_STREAM, config: { durable_name: 'stay', name: 'stay', ack_policy: 'none' } };
  // The bare subject is allowed, and there the server itself refuses a durable name.
  const bare = dec((await viewer.request(`$JS.API.CONSUMER.CREATE.${AUDIT_STREAM}`, enc(durable), { timeout: 5_000 })).data);
  t.like(bare, { error: { code: 400, err_code: 10020 } }, JSON.stringify(bare));
  await refused(t, viewer, `$JS.API.CONSUMER.CREATE.${AUDIT_STREAM}.stay`, durable);
  await refused(t, viewer, `$JS.API.CONSUMER.CREATE.${AUDIT_STREAM}.stay.mf.audit.>`, durable);
  await refused(t, viewer, `$JS.API.CONSUMER.DURABLE.CREATE.${AUDIT_STREAM}.stay`, durable);
  await refused(t, viewer, '$JS.API.CONSUMER.CREATE.KV_mf-members', { stream_name: 'KV_mf-members', config: { ack_policy: 'none' } });
  const names = dec(await w().transport.request(`$JS.API.CONSUMER.NAMES.${AUDIT_STREAM}`, enc({}), { timeoutMs: 5_000 }));
  t.false(JSON.stringify(names.consumers ?? []).includes('stay'), 'no durable was made');
});

test('consumers - a viewer reads the audit through an ephemeral pull consumer delivering to its own inbox', async (t) => {
  const viewer = await connectAs(t, 'viewer');
  const created = dec((await viewer.request(`$JS.API.CONSUMER.CREATE.${AUDIT_STREAM}`, enc({
    stream_name: AUDIT_STREAM, config: { ack_policy: 'none', inactive_threshold: 30_000_000_000, mem_storage: true },
  }), { timeout: 5_000 })).data);
  const name = String((created as { name?: string }).name);
  t.falsy(created.error, JSON.stringify(created));
  // A record arrives under its stream subject, not the reply subject: a request of its own (noMux).
  const first = await viewer.request(`$JS.API.CONSUMER.MSG.NEXT.${AUDIT_STREAM}.${name}`, enc({ batch: 1, expires: 2_000_000_000 }), { timeout: 5_000, noMux: true });
  t.regex(first.subject, /^mf\.audit\./);
  t.regex(first.reply ?? '', new RegExp(`^\\$JS\\.ACK\\.${AUDIT_STREAM}\\.${name}\\.`));
});

test('consumers - a push consumer a viewer points at mf.store.apply is taken by nats-server (it cannot check deliver subjects) and changes nothing', async (t) => {
  const { store, transport } = w();
  const before = await store.getFresh(HOST);
  const viewer = await connectAs(t, 'viewer');
  const refusalsBefore = await refusalRecords(transport);
  const created = dec((await viewer.request(`$JS.API.CONSUMER.CREATE.${AUDIT_STREAM}`, enc({
    stream_name: AUDIT_STREAM,
    // The nodes' queue group, as the server wants for a subject with queue subscribers.
    config: { deliver_subject: subjects().storeApply, deliver_group: STORE_QUEUE, ack_policy: 'none', deliver_policy: 'all', inactive_threshold: 5_000_000_000 },
  }), { timeout: 5_000 })).data);
  // Documented in deploy/nats/config.yaml: the server takes it (nats-io/nats-server#8274).
  t.falsy(created.error, JSON.stringify(created));
  const name = String((created as { name?: string }).name);
  await waitUntil(async () => {
    const info = dec((await viewer.request(`$JS.API.CONSUMER.INFO.${AUDIT_STREAM}.${name}`, enc({}), { timeout: 5_000 })).data) as { num_pending?: number; delivered?: { stream_seq?: number } };
    return info.num_pending === 0 && (info.delivered?.stream_seq ?? 0) > 0;
  }, 10_000, 'every audit record was pushed onto mf.store.apply');
  // The node takes only signed requests there: the host is as it was, and the node still answers.
  const after = await store.getFresh(HOST);
  t.deepEqual(after?.spec, before?.spec);
  t.deepEqual(after?.metadata.annotations, before?.metadata.annotations);
  t.deepEqual((await listNodes(transport)).map((n) => n.node), ['a']);
  // And the node saw the deliveries for what they are: refused unread and audited, not answered.
  await waitUntil(async () => (await refusalRecords(transport)).length > refusalsBefore.length, 10_000, 'the node audited the pushed deliveries as refusals');
  const records = (await refusalRecords(transport)).slice(refusalsBefore.length);
  t.true(records.length > 0);
  for (const record of records) t.like(record, { code: 'streamDelivery', outcome: 'refused' });
});

/** The records of the refusals stream, oldest first. */
async function refusalRecords(transport: Transport): Promise<Array<Record<string, unknown>>> {
  const info = dec(await transport.request('$JS.API.STREAM.INFO.mf-audit-refusals', enc({}), { timeoutMs: 5_000 })) as { state?: { first_seq?: number; last_seq?: number; messages?: number } };
  const records: Array<Record<string, unknown>> = [];
  if (!info.state?.messages) return records;
  for (let seq = info.state.first_seq ?? 1; seq <= (info.state.last_seq ?? 0); seq++) {
    const got = dec(await transport.request('$JS.API.STREAM.MSG.GET.mf-audit-refusals', enc({ seq }), { timeoutMs: 5_000 })) as { message?: { data?: string } };
    if (got.message?.data) records.push(JSON.parse(Buffer.from(got.message.data, 'base64').toString('utf8')) as Record<string, unknown>);
  }
  return records;
}
