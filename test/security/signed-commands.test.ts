// Issue 19, point 4: any NATS client could power off or delete any host. Now a node takes a host
// command only when an allow-listed operator key signed it for that subject, recently, once; all
// else is refused with a reason, and every command, taken or refused, lands in the audit stream.
import test from 'ava';
import { pack, unpack } from 'msgpackr';
import { shardOf } from '../../src/api/index.ts';
import { encode, RemoteError, subjects } from '../../src/bus/index.ts';
import { sendCommand } from '../../src/cluster/command-client.ts';
import { readAudit, signRequest, type AuditRecord, type SigningKey } from '../../src/security/index.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { waitUntil } from '../support/wait.ts';
import { securityWorld, SHARDS, type SecurityWorld } from './security-world.ts';

if (!natsServerInstalled()) test('security - nats-server is installed', (t) => t.fail('nats-server is missing: these tests need a real server'));

type Envelope = { ok: true; value: Record<string, unknown> } | { ok: false; error: { kind: string; message: string; retryable: boolean } };

const subjectOf = (key: string): string => subjects().command(shardOf(key, SHARDS));

async function rawRequest(w: SecurityWorld, subject: string, payload: unknown): Promise<Envelope> {
  const reply = await w.raw.request(subject, payload instanceof Uint8Array ? payload : pack(payload), { timeout: 5_000 });
  return unpack(reply.data) as Envelope;
}

async function signedRaw(w: SecurityWorld, key: SigningKey, subject: string, cmd: unknown, at = Date.now()): Promise<Envelope> {
  return rawRequest(w, subject, encode(signRequest(key, subject, cmd, at)));
}

function refusal(t: { fail(m: string): void }, reply: Envelope): { kind: string; message: string; retryable: boolean } {
  if (reply.ok) {
    t.fail(`expected a refusal, got ${JSON.stringify(reply.value)}`);
    return { kind: '', message: '', retryable: true };
  }
  return reply.error;
}

async function stays(w: SecurityWorld, key: string): Promise<boolean> {
  const host = await w.store.getFresh!(key);
  return host !== undefined && host.metadata.deletionTimestamp === undefined && host.spec.online === true;
}

async function lastAudit(w: SecurityWorld, host: string): Promise<AuditRecord | undefined> {
  return (await readAudit(w.client, subjects(), { host })).at(-1);
}

test('security - the anonymous attack: an unsigned delete of a provisioned host sent straight to mf.cmd.<shard> is refused and the host stays', async (t) => {
  const w = await securityWorld(t);
  const key = await w.provisioned('worker-0');
  t.is((await w.store.get(key))?.status?.provisioning.state, 'provisioned');
  const reply = await rawRequest(w, subjectOf(key), { type: 'delete', host: key, reason: 'anonymous' });
  const error = refusal(t, reply);
  t.is(error.kind, 'unauthorized');
  t.false(error.retryable);
  t.regex(error.message, /unsigned request refused.*--signing-key/);
  t.true(await stays(w, key), 'the host is neither deleted nor terminating');
  t.like(await lastAudit(w, key), { action: 'command', command: 'delete', host: key, caller: { kind: 'unsigned' }, outcome: 'refused', code: 'unauthorized', node: 'node-a' });
});

test('security - an operator-signed command is applied and audited with its signer', async (t) => {
  const w = await securityWorld(t);
  const key = await w.provisioned('worker-1');
  const reply = await sendCommand(w.client, { type: 'powerOff', host: key, requestId: 'ticket-42' }, { shardCount: SHARDS, signingKey: w.operator });
  t.like(reply, { host: key, command: 'powerOff', applied: true, state: 'provisioned' });
  t.is((await w.store.getFresh!(key))?.spec.online, false);
  const record = await lastAudit(w, key);
  t.like(record, {
    action: 'command', command: 'powerOff', host: key, requestId: 'ticket-42', outcome: 'applied', code: null, reason: null,
    caller: { kind: 'signed', signer: w.operator.publicKey, name: 'alice', role: 'operator' },
  });
  t.true(Math.abs(Date.parse(record!.at) - Date.now()) < 60_000, 'recorded now');
  t.truthy(record!.signedAt);
  // A repeat is recorded too, as changing nothing.
  await sendCommand(w.client, { type: 'powerOff', host: key, requestId: 'ticket-42' }, { shardCount: SHARDS, signingKey: w.operator });
  t.like(await lastAudit(w, key), { outcome: 'alreadyRecorded', caller: { name: 'alice' } });
});

test('security - unknown key, viewer key, tampered body, another subject, replay and a stale time are each refused with their reason', async (t) => {
  const w = await securityWorld(t);
  const key = await w.provisioned('worker-2');
  const subject = subjectOf(key);
  const del = { type: 'delete', host: key };
  const cases: Array<{ name: string; send: () => Promise<Envelope>; kind: string; reason: RegExp; caller: Record<string, unknown> }> = [
    { name: 'unknown key', send: () => signedRaw(w, w.stranger, subject, del), kind: 'unauthorized', reason: new RegExp(`key ${w.stranger.publicKey} is not in this cluster's authorized keys: .* file of every node, then restart them`), caller: { kind: 'unverified', signer: w.stranger.publicKey } },
    { name: 'viewer key', send: () => signedRaw(w, w.viewer, subject, del), kind: 'forbidden', reason: /key victor has role viewer; this request needs an operator key/, caller: { kind: 'signed', name: 'victor', role: 'viewer' } },
    {
      name: 'tampered body',
      send: () => {
        // Signed for a harmless powerOn; the body swapped for a delete afterwards.
        const envelope = signRequest(w.operator, subject, { type: 'powerOn', host: key });
        return rawRequest(w, subject, encode({ ...envelope, body: encode(del) }));
      },
      // Whoever sent it is not known to hold alice's key: recorded as unverified, the key only as claimed.
      kind: 'unauthorized', reason: /bad signature for the key of alice \(U\w{11}\.\.\.\): the request was changed after it was signed/, caller: { kind: 'unverified', signer: w.operator.publicKey },
    },
    {
      name: 'another subject',
      send: () => {
        // A signed delete captured on its way to another shard, replayed onto this host's subject.
        const other = subjects().command((shardOf(key, SHARDS) + 1) % SHARDS);
        return rawRequest(w, subject, encode(signRequest(w.operator, other, del)));
      },
      kind: 'unauthorized', reason: /bad signature for the key of alice .*signed for another subject/, caller: { kind: 'unverified', signer: w.operator.publicKey },
    },
    { name: 'stale time', send: () => signedRaw(w, w.operator, subject, del, Date.now() - 5 * 60_000), kind: 'unauthorized', reason: /stale request from alice: signed 300 s ago \(at most 120 s either way\)/, caller: { kind: 'signed', name: 'alice' } },
    { name: 'future time', send: () => signedRaw(w, w.operator, subject, del, Date.now() + 5 * 60_000), kind: 'unauthorized', reason: /stale request from alice: signed 300 s ahead/, caller: { kind: 'signed', name: 'alice' } },
  ];
  for (const c of cases) {
    const error = refusal(t, await c.send());
    t.is(error.kind, c.kind, c.name);
    t.regex(error.message, c.reason, c.name);
    t.false(error.retryable, c.name);
    t.like(await lastAudit(w, key), { command: 'delete', host: key, outcome: 'refused', code: c.kind, caller: c.caller }, c.name);
    t.true(await stays(w, key), `${c.name}: the host stays`);
  }

  // A replay of a good request: the first is taken, the same bytes again are not.
  const once = encode(signRequest(w.operator, subject, { type: 'pause', host: key, requestId: 'once' }));
  const first = await rawRequest(w, subject, once);
  t.true(first.ok, JSON.stringify(first));
  const again = refusal(t, await rawRequest(w, subject, once));
  t.is(again.kind, 'unauthorized');
  t.regex(again.message, /replayed request from alice: nonce .* was already used/);
  t.like(await lastAudit(w, key), { command: 'pause', outcome: 'refused', code: 'unauthorized', requestId: 'once' });
  t.true(await stays(w, key));
});

test('security - a replay taken by another node of the queue group is refused too (the nonce ledger is the cluster\'s)', async (t) => {
  const w = await securityWorld(t);
  const key = await w.provisioned('worker-3');
  const subject = subjectOf(key);
  const payload = encode(signRequest(w.operator, subject, { type: 'reboot', host: key, requestId: 'r1' }));
  t.true((await rawRequest(w, subject, payload)).ok);
  // The first node goes; a second one (its own guard, the same ledger bucket) takes the replay.
  await w.server.close();
  const { startCommandServer } = await import('../../src/cluster/command-server.ts');
  const { openAuditLog, openNonceLedger, parseAuthorizedKeys, signedGuard } = await import('../../src/security/index.ts');
  const { readFile } = await import('node:fs/promises');
  const { silentLogger } = await import('../../src/ports/index.ts');
  const b = startCommandServer({
    transport: w.node, store: w.store.resources, shardCount: SHARDS, log: silentLogger, node: 'node-b', audit: await openAuditLog(w.node, subjects(), silentLogger),
    guard: signedGuard({ keys: parseAuthorizedKeys(await readFile(w.authorizedKeysFile, 'utf8'), w.authorizedKeysFile), nonces: await openNonceLedger(w.node, 120_000) }),
  });
  t.teardown(() => b.close());
  // Node b's subscription reaches the server a moment after it is made: until an unsigned probe is answered (by b, a is gone).
  await waitUntil(async () => rawRequest(w, subject, { type: 'powerOn', host: key }).then(() => true, () => false), 5_000, 'node b answers');
  t.like(await lastAudit(w, key), { node: 'node-b', caller: { kind: 'unsigned' } });
  const error = refusal(t, await rawRequest(w, subject, payload));
  t.regex(error.message, /replayed request/);
  t.like(await lastAudit(w, key), { node: 'node-b', command: 'reboot', requestId: 'r1', outcome: 'refused', code: 'unauthorized' });
});

test('security - no seed in any reply, audit record, log line or NATS payload', async (t) => {
  const w = await securityWorld(t);
  const key = await w.provisioned('worker-4');
  const seen: string[] = [];
  // Everything that crosses the server, as a wiretap would see it.
  const tap = w.raw.subscribe('>', { callback: (_err, m) => void seen.push(Buffer.from(m.data).toString('latin1')) });
  t.teardown(() => tap.unsubscribe());
  await w.raw.flush();
  const replies: string[] = [];
  for (const signer of [w.operator, w.viewer, w.stranger]) {
    const r = await sendCommand(w.client, { type: 'powerOff', host: key }, { shardCount: SHARDS, signingKey: signer }).then((v) => JSON.stringify(v), (e: unknown) => (e instanceof RemoteError ? e.message : String(e)));
    replies.push(r);
  }
  replies.push(JSON.stringify(await rawRequest(w, subjectOf(key), { type: 'powerOn', host: key })));
  const audit = JSON.stringify(await readAudit(w.client, subjects()));
  const keys = JSON.stringify([w.operator, w.viewer, w.stranger]) + [w.operator, w.viewer].map((k) => String(k)).join('');
  await w.raw.flush();
  t.true(seen.length >= 8, `${seen.length} messages tapped`);
  for (const seed of await w.seeds()) {
    t.true(seed.startsWith('SU'));
    for (const [where, text] of [['replies', replies.join('\n')], ['audit', audit], ['logs', w.logLines.join('\n')], ['NATS payloads', seen.join('\n')], ['the key objects', keys]] as const) {
      t.false(text.includes(seed), `a seed in ${where}`);
      t.false(text.includes(seed.slice(2, 30)), `part of a seed in ${where}`);
    }
  }
  t.true(audit.includes(w.operator.publicKey), 'the audit names the public key');
});
