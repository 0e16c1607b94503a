// The shipped NATS configuration (deploy/nats/config.yaml) attacked as issue 19 did it: an
// anonymous client, and the operator and viewer users, try to delete a host record, lift a pool's
// limit, take shards with fake heartbeats and write leases. Each try must be refused by the
// server (a permission violation it reports and logs) and change nothing the real node holds.
// One real `metalfleet node` runs as the `node` user over TLS and provisions the hosts; the
// introspection and command CLIs run as the users people would run them as.
import net from 'node:net';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { headers, PermissionViolationError } from '@nats-io/nats-core';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { KV } from '@nats-io/kv';
import { startFixtureServer } from '../../src/adapters/fixture/remote/index.ts';
import type { FixtureServer } from '../../src/adapters/fixture/remote/index.ts';
import { openNatsStoreOn } from '../../src/adapters/store/nats-store.ts';
import type { NatsStore } from '../../src/adapters/store/nats-store.ts';
import { hostKvKey } from '../../src/adapters/store/nats-keys.ts';
import { call, connectNats, encode, subjects } from '../../src/bus/index.ts';
import { WireFigures } from '../../src/actors/capacity/cluster/messages.ts';
import { gather, listNodes } from '../../src/cluster/introspect/index.ts';
import { HOSTS_BUCKET } from '../../src/machines/buckets.ts';
import { LEASE_BUCKET, MEMBER_BUCKET } from '../../src/node/index.ts';
import type { Transport } from '../../src/ports/index.ts';
import { shardOf } from '../../src/api/index.ts';
import type { BareMetalHost } from '../../src/api/index.ts';
import { startSecureNats } from '../support/secure-nats.ts';
import type { NatsRole, SecureNats } from '../support/secure-nats.ts';
import { BMC_PASSWORD, cliAs, makeSigningKeys, startSecureNode } from '../support/secure-node.ts';
import type { SecureNodeProcess, SigningKeys } from '../support/secure-node.ts';
import { waitUntil } from '../support/wait.ts';

const SHARDS = 16;
const LIMIT = 5;
const POOL = 'fixture:default';
const HOSTS = ['fleet/host-0', 'fleet/host-1', 'fleet/host-2', 'fleet/host-3'];
// The record the attacks aim at, and the hosts the command tests power off (or try to).
const TARGET = 'fleet/host-0';
const OPERATOR_POWERS_OFF = 'fleet/host-1';
const VIEWER_TRIES = 'fleet/host-2';
const AUDITED = 'fleet/host-3';
// The stream the nodes append audit records to (src/security/audit-log.ts).
const AUDIT_STREAM = 'mf-audit';
const ATTACKERS: readonly NatsRole[] = ['operator', 'viewer'];

interface World {
  nats: SecureNats;
  fixture: FixtureServer;
  node: SecureNodeProcess;
  /** A client as `node`, to look at what the attacks aimed at. */
  transport: Transport;
  store: NatsStore;
  raw: NatsConnection;
  hosts: KV;
  members: KV;
  leases: KV;
  keys: SigningKeys;
}

let world: World | undefined;

function w(): World {
  if (!world) throw new Error('the secure cluster did not start (see the before hook)');
  return world;
}

function bmh(key: string, i: number): BareMetalHost {
  const [namespace, name] = key.split('/') as [string, string];
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name, namespace },
    spec: {
      online: true,
      bmc: { address: `ipmi://10.0.0.${i + 1}`, credentialsName: 'bmc' },
      bootMACAddress: `52:54:00:00:00:0${i + 1}`,
      image: { url: 'http://images/os.qcow2', checksum: 'abc', checksumType: 'sha256' },
      inspectionMode: 'disabled',
    },
  } as BareMetalHost;
}

// Undone in reverse, also when the before hook fails halfway.
const cleanups: Array<() => Promise<unknown>> = [];

test.before(async () => {
  const nats = await startSecureNats();
  cleanups.push(() => nats.dispose());
  const fixture = await startFixtureServer({ options: { latencyMs: 5, demoBehaviours: false } });
  cleanups.push(() => fixture.close());
  const keys = await makeSigningKeys(nats.dir);
  const node = await startSecureNode(nats, { name: 'a', fixtureUrl: fixture.url, shards: SHARDS, limit: LIMIT, keys });
  cleanups.push(() => node.stop());
  const transport = await connectNats({ servers: nats.url, name: 'test-node-client', auth: { user: 'node', pass: nats.passwords.node }, tls: nats.tlsFor('node') });
  cleanups.push(() => transport.close());
  const store = await openNatsStoreOn(transport);
  cleanups.push(() => store.close());
  const raw = await nats.connect('node');
  cleanups.push(() => raw.close());
  const kvm = new Kvm(jetstream(raw));
  world = {
    nats, fixture, node, transport, store, raw, keys,
    hosts: await kvm.open(HOSTS_BUCKET), members: await kvm.open(MEMBER_BUCKET), leases: await kvm.open(LEASE_BUCKET),
  };
  // Applied as a node would store them (apply through store requests is not there yet).
  const applied = await store.apply(HOSTS.map(bmh), 'nats-permissions-test');
  if (!applied.ok) throw new Error(`apply failed: ${JSON.stringify(applied.issues)}`);
  await waitUntil(async () => {
    for (const key of HOSTS) if ((await store.getFresh(key))?.status?.provisioning.state !== 'provisioned') return false;
    return true;
  }, 60_000, 'the node, connected as node over TLS, provisions every host', 100);
});

// Everything the node did in these tests (start, provision, commands, introspection, audit) was
// allowed: a permission the node lacks would show here before it shows in production.
test.after.always('nats security - the node user was refused nothing', (t) => {
  if (!world) {
    t.pass('the before hook failed and says why');
    return;
  }
  t.deepEqual(w().nats.log().split('\n').filter((l) => l.includes('Violation - User "node"')), []);
});

test.after.always(async () => {
  for (const undo of cleanups.reverse()) await undo().catch(() => undefined);
});

/** shard -> "node@epoch", from the node itself: who holds each lease, since when. */
async function shardOwners(): Promise<Map<number, string>> {
  const g = await gather(w().transport, 'shards', {}, { timeoutMs: 5_000 });
  const out = new Map<number, string>();
  for (const r of g.replies) for (const s of r.value.shards) out.set(s.shard, `${r.node}@${s.epoch}`);
  return out;
}

async function connectAs(t: ExecutionContext, role: NatsRole): Promise<NatsConnection> {
  const nc = await w().nats.connect(role);
  t.teardown(() => nc.close());
  return nc;
}

/** A request the server must refuse: the client sees the violation at once and the server logs it. */
async function refused(t: ExecutionContext, nc: NatsConnection, role: NatsRole, subject: string, data: Uint8Array = new Uint8Array(0), hdrs?: ReturnType<typeof headers>): Promise<void> {
  const error = await t.throwsAsync(nc.request(subject, data, { timeout: 5_000, ...(hdrs ? { headers: hdrs } : {}) }));
  // nats.js hands it over as a RequestError caused by the server's violation.
  const violation = error instanceof PermissionViolationError ? error : error?.cause;
  t.true(violation instanceof PermissionViolationError && violation.subject === subject, `${role} on ${subject}: expected a permission violation, got ${String(error)}`);
  await w().nats.waitForViolation(role, subject);
}

// ---- who may connect --------------------------------------------------------------------------

test('nats security - a client without credentials is refused', async (t) => {
  const error = await t.throwsAsync(w().nats.connect(null));
  t.regex(String(error), /Authorization/i);
  // Nor does a known user get in with a wrong password.
  await t.throwsAsync(w().nats.connect('viewer', { pass: 'not-the-password' }), { message: /Authorization/i });
  // And the CLI without credentials says so, without a retry loop.
  const cli = await cliAs(w().nats, null, ['nodes', '--timeout', '2']);
  t.not(cli.code, 0);
  t.regex(cli.stderr, /authoriz/i);
});

test('nats security - a client that does not speak TLS is refused, even with a good password', async (t) => {
  const { port, passwords } = w().nats;
  // A plain-text client: read INFO, send CONNECT and PING without a TLS handshake.
  const reply = await new Promise<string>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let sent = false;
    const done = (): void => {
      socket.destroy();
      resolve(text);
    };
    socket.setTimeout(5_000, done);
    socket.on('data', (b) => {
      text += b.toString('latin1');
      if (!sent && text.includes('\r\n')) {
        sent = true;
        socket.write(`CONNECT ${JSON.stringify({ user: 'viewer', pass: passwords.viewer, verbose: false, pedantic: false, tls_required: false, name: 'plain' })}\r\nPING\r\n`);
      }
      if (text.includes('PONG')) done();
    });
    socket.on('close', done);
    socket.on('error', done);
  });
  t.regex(reply, /"tls_required":\s*true/, 'the server announces that TLS is required');
  t.false(reply.includes('PONG'), `a plain-text client got in: ${reply.slice(0, 300)}`);
  // The CLI without the CA does not trust the server, so it never sends the password.
  const cli = await cliAs(w().nats, 'viewer', ['nodes', '--timeout', '2'], { trustServer: false });
  t.not(cli.code, 0);
  t.regex(cli.stderr, /certificate|TLS/i);
});

// ---- the attacks --------------------------------------------------------------------------------

for (const role of ATTACKERS) {
  test(`nats security - ${role} cannot delete, overwrite or purge a host record in ${HOSTS_BUCKET}`, async (t) => {
    const { hosts } = w();
    const kvKey = hostKvKey(TARGET);
    const before = await hosts.get(kvKey);
    if (!before) throw new Error(`${TARGET} has no record in ${HOSTS_BUCKET}`);
    const nc = await connectAs(t, role);
    const subject = `$KV.${HOSTS_BUCKET}.${kvKey}`;
    // A KV delete is a publish with the KV-Operation header; an overwrite a plain publish.
    const del = headers();
    del.set('KV-Operation', 'DEL');
    await refused(t, nc, role, subject, new Uint8Array(0), del);
    await refused(t, nc, role, subject, new TextEncoder().encode('{"apiVersion":"metal3.io/v1alpha1"}'));
    // Nor through the JetStream API behind the bucket.
    const stream = `KV_${HOSTS_BUCKET}`;
    for (const api of ['STREAM.PURGE', 'STREAM.DELETE', 'STREAM.MSG.DELETE', 'STREAM.UPDATE']) {
      await refused(t, nc, role, `$JS.API.${api}.${stream}`, new TextEncoder().encode(JSON.stringify({ seq: before.revision, filter: subject })));
    }
    // Nothing changed: the same record at the same revision, and the node still serves it.
    const after = await hosts.get(kvKey);
    t.is(after?.revision, before.revision);
    t.is(after?.operation, 'PUT');
    t.deepEqual(after?.value, before.value);
    t.is((await w().store.getFresh(TARGET))?.status?.provisioning.state, 'provisioned');
  });

  test(`nats security - ${role} cannot set a pool's limit through ${subjects().capacity}`, async (t) => {
    const nc = await connectAs(t, role);
    await refused(t, nc, role, subjects().capacity, encode({ type: 'setLimit', pool: POOL, limit: 0 }));
    // Nor listen in the broker's place, to answer the nodes' slot requests itself.
    nc.subscribe(subjects().capacity);
    await w().nats.waitForViolation(role, subjects().capacity, 'Subscription');
    const figures = await call(w().transport, subjects().capacity, { type: 'figures' }, WireFigures, { timeoutMs: 5_000 });
    t.is(figures.pools.find((p) => p.pool === POOL)?.limit, LIMIT, 'the limit the node was started with');
  });

  test(`nats security - ${role} cannot take shards with fake heartbeats in ${MEMBER_BUCKET}`, async (t) => {
    const owners = await shardOwners();
    t.is(owners.size, SHARDS);
    const nc = await connectAs(t, role);
    const fakes = ['intruder-0', 'intruder-1', 'intruder-2'];
    // Heartbeats as a node writes them, several rounds, as the attack in issue 19 did.
    for (let round = 0; round < 3; round++) {
      for (const fake of fakes) {
        await refused(t, nc, role, `$KV.${MEMBER_BUCKET}.node.${fake}`, new TextEncoder().encode(JSON.stringify({ node: fake, at: Date.now() })));
      }
    }
    for (const fake of fakes) t.is(await w().members.get(`node.${fake}`), null, `no heartbeat of ${fake}`);
    t.deepEqual((await listNodes(w().transport)).map((n) => n.node), ['a']);
    // The real node still owns every shard, under the same leases (epochs) as before.
    t.deepEqual(await shardOwners(), owners);
    t.true([...owners.values()].every((o) => o.startsWith('a@')));
  });

  test(`nats security - ${role} cannot write or delete the shard leases in ${LEASE_BUCKET}`, async (t) => {
    const owners = await shardOwners();
    const before = await w().leases.get('shard.3');
    if (!before) throw new Error('no lease on shard 3');
    const nc = await connectAs(t, role);
    await refused(t, nc, role, `$KV.${LEASE_BUCKET}.shard.3`, new TextEncoder().encode(JSON.stringify({ node: role })));
    const del = headers();
    del.set('KV-Operation', 'PURGE');
    await refused(t, nc, role, `$KV.${LEASE_BUCKET}.shard.4`, new Uint8Array(0), del);
    await refused(t, nc, role, `$JS.API.STREAM.PURGE.KV_${LEASE_BUCKET}`);
    // Renewals move the revision and the time on; the holder and its lease id stay, and so does
    // every shard's epoch.
    const holder = (value: Uint8Array | undefined): unknown => {
      const { holder: h, leaseId } = JSON.parse(new TextDecoder().decode(value)) as { holder?: string; leaseId?: string };
      return { holder: h, leaseId };
    };
    t.deepEqual(holder((await w().leases.get('shard.3'))?.value), holder(before.value));
    t.like(holder(before.value), { holder: 'a' });
    t.deepEqual(await shardOwners(), owners);
  });

  test(`nats security - ${role} cannot create streams or answer for the nodes`, async (t) => {
    const nc = await connectAs(t, role);
    await refused(t, nc, role, '$JS.API.STREAM.CREATE.evil', new TextEncoder().encode(JSON.stringify({ name: 'evil', subjects: ['mf.>'] })));
    await refused(t, nc, role, `$JS.API.STREAM.CREATE.KV_${MEMBER_BUCKET}`, new TextEncoder().encode(JSON.stringify({ name: `KV_${MEMBER_BUCKET}`, subjects: [`$KV.${MEMBER_BUCKET}.>`] })));
    // Neither stream came to be: the new one does not exist, the member bucket keeps its subjects.
    const jsm = await jetstreamManager(w().raw);
    await t.throwsAsync(jsm.streams.info('evil'), { message: /stream not found/i });
    t.deepEqual((await jsm.streams.info(`KV_${MEMBER_BUCKET}`)).config.subjects, [`$KV.${MEMBER_BUCKET}.>`]);
    for (const subject of [subjects().commands, 'mf.introspect.>', '$KV.>']) {
      const sub = nc.subscribe(subject);
      await w().nats.waitForViolation(role, subject, 'Subscription');
      // The client is told too: the server closes the subscription with the violation, before
      // a single command or request could reach it.
      const closedWith = await sub.closed;
      t.true(closedWith instanceof PermissionViolationError && closedWith.subject === subject && closedWith.operation === 'subscription', `${role} subscribing to ${subject}: closed with ${String(closedWith)}`);
      t.is(sub.getReceived(), 0, `${role} received nothing on ${subject}`);
    }
  });
}

// ---- what each user is there for ---------------------------------------------------------------

test('nats security - the introspection CLI works as viewer: hosts, nodes, shards', async (t) => {
  const { nats } = w();
  const json = async <T>(...args: string[]): Promise<T> => {
    const r = await cliAs(nats, 'viewer', [...args, '--json', '--timeout', '10']);
    t.is(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  };
  const hosts = await json<{ replies: Array<{ value: { hosts: Array<{ key: string }> } }>; missing: string[] }>('hosts');
  t.deepEqual(hosts.missing, []);
  t.deepEqual(hosts.replies.flatMap((r) => r.value.hosts.map((h) => h.key)).sort(), [...HOSTS].sort());
  const nodes = await json<{ replies: Array<{ node: string }> }>('nodes');
  t.deepEqual(nodes.replies.map((r) => r.node), ['a']);
  const shards = await json<{ replies: Array<{ node: string; value: { shards: Array<{ shard: number }> } }> }>('shards');
  t.deepEqual(shards.replies.flatMap((r) => r.value.shards.map((s) => s.shard)).sort((x, y) => x - y), Array.from({ length: SHARDS }, (_, i) => i));
  for (const r of [hosts, nodes, shards]) t.false(JSON.stringify(r).includes(BMC_PASSWORD));
});

test('nats security - operator runs the introspection commands too, and both find the nodes by service discovery', async (t) => {
  const { nats } = w();
  const capacity = await cliAs(nats, 'operator', ['capacity', '--json', '--timeout', '10']);
  t.is(capacity.code, 0, capacity.stderr);
  const pools = (JSON.parse(capacity.stdout) as { replies: Array<{ value: { pools: Array<{ pool: string; limit: number | null }> } }> }).replies.flatMap((r) => r.value.pools);
  t.is(pools.find((p) => p.pool === POOL)?.limit, LIMIT);
  const inspect = await cliAs(nats, 'operator', ['inspect', TARGET, '--json', '--timeout', '10']);
  t.is(inspect.code, 0, inspect.stderr);
  t.true(inspect.stdout.includes(TARGET));
  t.false(inspect.stdout.includes(BMC_PASSWORD));
  for (const role of ATTACKERS) {
    const nc = await connectAs(t, role);
    const ping = await nc.request('$SRV.PING.metalfleet', new Uint8Array(0), { timeout: 5_000 });
    t.regex(ping.string(), /"name":\s*"metalfleet"/, `${role}: $SRV.PING answered`);
  }
});

test('nats security - host power-off works as operator and is refused for viewer', async (t) => {
  const { nats, store } = w();
  const asOperator = await cliAs(nats, 'operator', ['host', 'power-off', OPERATOR_POWERS_OFF, '--shards', String(SHARDS), '--timeout', '20'], { keys: w().keys });
  t.is(asOperator.code, 0, asOperator.stderr);
  await waitUntil(async () => (await store.getFresh(OPERATOR_POWERS_OFF))?.spec.online === false, 10_000, `${OPERATOR_POWERS_OFF} spec.online false`);

  // A long timeout: the refusal is final and must come at once, not after retrying until it.
  const started = Date.now();
  const asViewer = await cliAs(nats, 'viewer', ['host', 'power-off', VIEWER_TRIES, '--shards', String(SHARDS), '--timeout', '60'], { keys: w().keys });
  t.not(asViewer.code, 0);
  t.regex(asViewer.stdout + asViewer.stderr, /does not allow this connection's user to publish to mf\.cmd\.\d+/);
  t.true(Date.now() - started < 30_000, 'refused without retrying until the timeout');
  t.true(nats.violated('viewer', subjects().command(shardOf(VIEWER_TRIES, SHARDS))));
  t.is((await store.getFresh(VIEWER_TRIES))?.spec.online, true, 'the viewer\'s command changed nothing');
});

test('nats security - nodes write the audit; viewer and operator read it and the membership, and cannot write either', async (t) => {
  const { nats, keys } = w();
  const command = await cliAs(nats, 'operator', ['host', 'power-off', AUDITED, '--shards', String(SHARDS), '--timeout', '20'], { keys });
  t.is(command.code, 0, command.stderr);
  const jsm = await jetstreamManager(w().raw);
  for (const role of ATTACKERS) {
    const audit = await cliAs(nats, role, ['audit', '--host', AUDITED, '--json']);
    t.is(audit.code, 0, `${role}: metalfleet audit: ${audit.stderr}`);
    t.true(audit.stdout.includes(AUDITED), `${role} reads the node's record of the command`);

    const nc = await connectAs(t, role);
    const transport = await connectNats({ servers: nats.url, name: `reader-${role}`, auth: { user: role, pass: nats.passwords[role] }, tls: nats.tlsFor(role) });
    t.teardown(() => transport.close());
    t.deepEqual((await listNodes(transport)).map((n) => n.node), ['a'], `${role} lists the members`);
    // A message get works too; consumers only as `metalfleet audit` makes them (ephemeral, on the
    // bare CONSUMER.CREATE subject: test/security/nats-private-inboxes.test.ts).
    const readerJsm = await jetstreamManager(nc);
    const last = (await readerJsm.streams.info(AUDIT_STREAM)).state.last_seq;
    t.truthy((await readerJsm.streams.getMessage(AUDIT_STREAM, { seq: last }))?.subject, `${role} gets a record`);

    await refused(t, nc, role, 'mf.audit.command', new TextEncoder().encode('{"forged":true}'));
    await refused(t, nc, role, `$JS.API.STREAM.PURGE.${AUDIT_STREAM}`);
  }
  const info = await jsm.streams.info(AUDIT_STREAM);
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
    const m = await jsm.streams.getMessage(AUDIT_STREAM, { seq }).catch(() => null);
    t.false(m?.string().includes('forged') ?? false, `record ${seq} is not the forged one`);
  }
});

test('nats security - no password reaches the server log or the node\'s output', async (t) => {
  const { nats, node } = w();
  // Some failed logins first, so the log has had every chance to show a password.
  await t.throwsAsync(nats.connect('operator', { pass: 'wrong-password-Qx5' }));
  const texts = [nats.log(), node.stderr()];
  for (const role of ['node', 'operator', 'viewer'] as const) {
    for (const text of texts) t.false(text.includes(nats.passwords[role]), `${role}'s password in a log`);
  }
  for (const text of texts) t.false(text.includes('wrong-password-Qx5'));
});
