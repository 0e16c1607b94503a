// Issue 33, points 2 to 5, as attacks on a real nats-server: a viewer's consumer delivering old
// records into another reader's inbox, a flood of refusals from a client with no signing key, a
// newline in a refused request's id, and a payload that is not MessagePack. Each changed what
// `metalfleet audit` showed (or left no trace) before; now the reader refuses what its own consumer
// did not deliver, refusals are counted per sender apart from the commands taken, every field
// prints on one line, and an unreadable payload is audited by size and sender.
import test from 'ava';
import { pack, unpack } from 'msgpackr';
import { shardOf } from '../../src/api/index.ts';
import { connectNats, encode, subjects } from '../../src/bus/index.ts';
import type { Transport } from '../../src/ports/index.ts';
import { silentLogger } from '../../src/ports/index.ts';
import {
  AUDIT_REFUSALS_MAX_BYTES, AUDIT_REFUSALS_STREAM, AUDIT_STREAM, AuditUnavailable, openAuditLog, readAudit, readAuditChecked, REFUSAL_FULL_PER_SENDER, signRequest,
  type AuditRecord,
} from '../../src/security/index.ts';
import { lines, metalfleet } from '../cli/run.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { startSecureNats } from '../support/secure-nats.ts';
import { waitUntil } from '../support/wait.ts';
import { securityWorld, SHARDS, type SecurityWorld } from './security-world.ts';

if (!natsServerInstalled()) test('audit attacks - nats-server is installed', (t) => t.fail('nats-server is missing: these tests need a real server'));

const enc = (o: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(o));
const dec = (d: Uint8Array): Record<string, unknown> => JSON.parse(new TextDecoder().decode(d)) as Record<string, unknown>;

function record(requestId: string, action: AuditRecord['action'], at: string): AuditRecord {
  return {
    at, node: 'a', action, command: action === 'command' ? 'powerOff' : 'delete', host: 'metal3/h', requestId,
    caller: { kind: 'signed', signer: `U${'A'.repeat(55)}`, name: 'alice', role: 'operator' }, signedAt: at, outcome: 'applied', code: null, reason: null,
  };
}

/** `inner`, except that `beforeCreate` runs with the deliver subject before the reader's consumer on mf-audit is created. */
function intercepted(inner: Transport, beforeCreate: (deliverSubject: string) => Promise<void>): Transport {
  return {
    name: inner.name,
    get maxPayload() { return inner.maxPayload; },
    newInbox: () => inner.newInbox(),
    publish: (s, d) => inner.publish(s, d),
    subscribe: (s, h, o) => inner.subscribe(s, h, o),
    kv: (b, o) => inner.kv(b, o),
    onStatus: (l) => inner.onStatus(l),
    answers: (ms) => inner.answers(ms),
    close: () => inner.close(),
    async request(subject, data, options) {
      if (subject.startsWith(`$JS.API.CONSUMER.CREATE.${AUDIT_STREAM}`) && !subject.startsWith(`$JS.API.CONSUMER.CREATE.${AUDIT_REFUSALS_STREAM}`)) {
        const body = dec(data) as { config?: { deliver_subject?: string } };
        if (body.config?.deliver_subject) await beforeCreate(body.config.deliver_subject);
      }
      return inner.request(subject, data, options);
    },
  };
}

test('audit attacks - redirect: a viewer\'s consumers deliver copies of an old record into an operator reader\'s inbox; the reader refuses them, says so, and shows the newest records', async (t) => {
  const nats = await startSecureNats();
  t.teardown(() => nats.dispose());
  const node = await connectNats({ servers: nats.url, name: 'a', auth: { user: 'node', pass: nats.passwords.node }, tls: nats.tlsFor('node') });
  t.teardown(() => node.close());
  const audit = await openAuditLog(node, subjects(), silentLogger);
  await audit.record(record('old-delete', 'delete', '2026-12-01T08:00:00.000Z'));
  await audit.record(record('new-1', 'command', '2026-12-04T08:00:00.000Z'));
  await audit.record(record('new-2', 'command', '2026-12-04T09:00:00.000Z'));

  const viewer = await nats.connect('viewer');
  t.teardown(() => viewer.close());
  const operator = await connectNats({ servers: nats.url, name: 'reader', auth: { user: 'operator', pass: nats.passwords.operator }, tls: nats.tlsFor('operator') });
  t.teardown(() => operator.close());
  let attacked = 0;
  // As the viewer of issue 33: three push consumers of the old record, aimed at the reader's deliver subject.
  const attack = async (deliverSubject: string): Promise<void> => {
    for (let i = 0; i < 3; i++) {
      const created = dec((await viewer.request(`$JS.API.CONSUMER.CREATE.${AUDIT_STREAM}`, enc({
        stream_name: AUDIT_STREAM,
        config: { deliver_subject: deliverSubject, filter_subject: subjects().audit('delete'), ack_policy: 'none', deliver_policy: 'all', mem_storage: true, inactive_threshold: 5_000_000_000 },
      }), { timeout: 5_000 })).data);
      t.falsy(created.error, JSON.stringify(created));
      const name = String(created.name);
      await waitUntil(async () => {
        const info = dec((await viewer.request(`$JS.API.CONSUMER.INFO.${AUDIT_STREAM}.${name}`, enc({}), { timeout: 5_000 })).data) as { delivered?: { stream_seq?: number } };
        return (info.delivered?.stream_seq ?? 0) > 0;
      }, 10_000, 'the viewer\'s consumer delivered the old record');
      attacked += 1;
    }
  };

  const read = await readAuditChecked(intercepted(operator, attack), subjects());
  t.is(attacked, 3, 'the attack ran before the reader\'s own consumer');
  t.is(read.refused, 3);
  t.regex(read.reasons[0] ?? '', /delivered by consumer .* of stream "mf-audit", not by this reader's/);
  t.deepEqual(read.records.map((r) => r.requestId), ['old-delete', 'new-1', 'new-2'], 'every record once, the newest last');

  attacked = 0;
  const error = await t.throwsAsync(readAudit(intercepted(operator, attack), subjects()), { instanceOf: AuditUnavailable });
  t.regex(error?.message ?? '', /3 messages reaching this reader did not come from its own consumer/);
});

async function rawRequest(w: SecurityWorld, subject: string, payload: Uint8Array): Promise<{ ok: boolean; error?: { kind: string; message: string } }> {
  return unpack((await w.raw.request(subject, payload, { timeout: 10_000 })).data) as { ok: boolean; error?: { kind: string; message: string } };
}

async function streamMessages(w: SecurityWorld, stream: string): Promise<{ messages: number; config: { subjects: string[]; max_bytes: number; discard: string } }> {
  const info = dec(await w.client.request(`$JS.API.STREAM.INFO.${stream}`, new Uint8Array(0), { timeoutMs: 5_000 })) as { state: { messages: number }; config: { subjects: string[]; max_bytes: number; discard: string } };
  return { messages: info.state.messages, config: info.config };
}

test('audit attacks - flood: 400 unsigned commands from one client leave the commands taken alone in mf-audit, and are counted in mf-audit-refusals', async (t) => {
  const w = await securityWorld(t);
  const key = await w.provisioned('flooded');
  const subject = subjects().command(shardOf(key, SHARDS));
  const signed = async (type: string, requestId: string): Promise<void> => {
    const reply = await rawRequest(w, subject, encode(signRequest(w.operator, subject, { type, host: key, requestId })));
    t.true(reply.ok, JSON.stringify(reply));
  };
  await signed('pause', 'before-the-flood');
  const FLOOD = 400;
  const replies = await Promise.all(Array.from({ length: FLOOD }, (_, i) => rawRequest(w, subject, pack({ type: 'delete', host: key, requestId: `flood-${i}` }))));
  t.true(replies.every((r) => !r.ok && r.error?.kind === 'unauthorized'));
  await signed('unpause', 'after-the-flood');
  await w.audit.flush();

  const taken = await streamMessages(w, AUDIT_STREAM);
  t.is(taken.messages, 2, 'mf-audit holds the two commands taken, nothing of the flood');
  const refusals = await streamMessages(w, AUDIT_REFUSALS_STREAM);
  t.is(refusals.messages, REFUSAL_FULL_PER_SENDER + 1, 'the first refusals in full, then one count');
  t.deepEqual(refusals.config.subjects, ['mf.refusals.>']);
  t.is(refusals.config.max_bytes, AUDIT_REFUSALS_MAX_BYTES);
  t.is(refusals.config.discard, 'old');

  const read = await readAudit(w.client, subjects());
  t.deepEqual(read.filter((r) => r.outcome !== 'refused').map((r) => r.requestId), ['before-the-flood', 'after-the-flood']);
  const refused = read.filter((r) => r.outcome === 'refused');
  const counted = refused.filter((r) => r.repeats);
  t.is(counted.length, 1);
  t.like(counted[0], { code: 'repeated', caller: { kind: 'unsigned' }, repeats: { count: FLOOD - REFUSAL_FULL_PER_SENDER } });
  t.deepEqual(counted[0]?.repeats?.reasons.map((r) => [r.action, r.code, r.count]), [['command', 'unauthorized', FLOOD - REFUSAL_FULL_PER_SENDER]]);
  t.regex(counted[0]?.sender ?? '', /^_INBOX\.[A-Za-z0-9]+$/, 'the sender as the node\'s connection knows it');
  t.true(refused.every((r) => r.sender === counted[0]?.sender), 'one sender');
  t.is(refused.length - 1 + (counted[0]?.repeats?.count ?? 0), FLOOD, 'every refusal is in a record or a count');
});

test('audit attacks - a newline in a refused request\'s requestId prints escaped, on the one line of its record', async (t) => {
  const w = await securityWorld(t);
  const key = await w.provisioned('forged');
  const forgedLine = '2026-12-04T10:00:00.000Z  node-a  alice (operator UABCDEFGHIJK...)  command powerOff  metal3/forged  applied';
  const reply = await rawRequest(w, subjects().command(shardOf(key, SHARDS)), pack({ type: 'powerOff', host: key, requestId: `x\n${forgedLine}\r\u001b[2K` }));
  t.false(reply.ok);
  const records = await readAudit(w.client, subjects());
  t.is(records.length, 1);
  for (const json of [false, true]) {
    const shown = await metalfleet('audit', '--nats', w.nats.url, ...(json ? ['--json'] : []));
    t.is(shown.code, 0, shown.stderr);
    t.is(lines(shown.stdout).length, 1, shown.stdout);
    t.false(shown.stdout.split('\n').some((l) => l.startsWith(forgedLine)), 'no line reads as the forged record');
    t.false(shown.stdout.includes('\r') || shown.stdout.includes('\u001b'), shown.stdout);
  }
  const shown = await metalfleet('audit', '--nats', w.nats.url);
  t.true(shown.stdout.includes(`request x\\x0a${forgedLine}\\x0d\\x1b[2K`), shown.stdout);
});

test('audit attacks - a command payload that is not MessagePack is refused and audited as undecodable: its size and sender, never its bytes', async (t) => {
  const w = await securityWorld(t);
  const secret = 'XYZZY-payload-bytes';
  const payload = new Uint8Array([0xc1, ...new TextEncoder().encode(secret)]);
  const reply = await rawRequest(w, subjects().command(3), payload);
  t.false(reply.ok);
  t.regex(reply.error?.message ?? '', /is not MessagePack/);
  const records = await readAudit(w.client, subjects());
  t.is(records.length, 1);
  t.like(records[0], { action: 'command', outcome: 'refused', code: 'undecodable', size: payload.length, host: null, requestId: null, caller: { kind: 'unverified', signer: null } });
  t.regex(records[0]?.sender ?? '', /^_INBOX\.[A-Za-z0-9]+$/);
  t.false(JSON.stringify(records).includes(secret));
  t.false(JSON.stringify(records).includes('XYZZY'));
});
