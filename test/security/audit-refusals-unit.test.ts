// The pieces of an audit nobody can flush, rewrite or forge, without a server: refusals counted
// per sender with every one in a record or a count; a delivery taken only from the reader's own
// consumer with a rising stream sequence; every field printed on one line.
import test from 'ava';
import { formatRecord } from '../../src/cli/commands/audit.ts';
import { jsonLine, oneLine } from '../../src/cli/terminal-text.ts';
import { senderOf } from '../../src/bus/index.ts';
import { AuditRecord, checkDelivery, OTHER_SENDERS, refusalLimiter } from '../../src/security/index.ts';
import { waitUntil } from '../support/wait.ts';

const refusal = (n: number, code = 'unauthorized'): AuditRecord => ({
  at: new Date(Date.UTC(2026, 11, 4, 12, 0, 0, n)).toISOString(), node: 'node-a', action: 'command', command: 'powerOff', host: 'metal3/h', requestId: `r${n}`,
  caller: { kind: 'unsigned' }, signedAt: null, outcome: 'refused', code, reason: 'unsigned request refused',
});

test('refusals - a sender\'s first five are recorded in full, the rest in one counted record; senders past the limit share one; nothing is lost', async (t) => {
  const written: AuditRecord[] = [];
  const limiter = refusalLimiter({ write: (r) => Promise.resolve(void written.push(r)), windowMs: 3_600_000, maxSenders: 3, fullPerSender: 5 });
  let n = 0;
  for (const sender of ['_INBOX.a', '_INBOX.b', '_INBOX.c', '_INBOX.d', '_INBOX.e']) {
    for (let i = 0; i < 100; i++) await limiter.refused(refusal(n++, i % 10 === 0 ? 'forbidden' : 'unauthorized'), sender);
  }
  t.is(written.length, 15, 'three senders, five each, before the window closes');
  await limiter.flush();
  for (const r of written) t.true(AuditRecord.safeParse(r).success, JSON.stringify(r));
  const counted = written.filter((r) => r.repeats);
  t.deepEqual(counted.map((r) => r.sender), ['_INBOX.a', '_INBOX.b', '_INBOX.c', OTHER_SENDERS]);
  t.deepEqual(counted.map((r) => r.repeats?.count), [95, 95, 95, 200]);
  const full = written.filter((r) => !r.repeats).length;
  t.is(full + counted.reduce((sum, r) => sum + (r.repeats?.count ?? 0), 0), 500, 'every refusal is in a record or a count');
  t.regex(counted[0]?.reason ?? '', /^95 more refusals since .*: 86 unauthorized, 9 forbidden$/);
  t.is(counted[3]?.caller.kind, 'unverified', 'senders folded together name no one caller');
  await limiter.flush();
  t.is(written.length, 19, 'an empty window writes nothing');
});

test('refusals - the count is written when its window closes, with no flush', async (t) => {
  const written: AuditRecord[] = [];
  const limiter = refusalLimiter({ write: (r) => Promise.resolve(void written.push(r)), windowMs: 50, fullPerSender: 1 });
  for (let i = 0; i < 4; i++) await limiter.refused(refusal(i), '_INBOX.a');
  t.is(written.length, 1);
  await waitUntil(() => written.length === 2, 5_000, 'the window closed');
  t.like(written[1], { sender: '_INBOX.a', code: 'repeated', repeats: { count: 3 } });
  await limiter.refused(refusal(9), '_INBOX.a');
  t.is(written.length, 3, 'a new window records the sender in full again');
});

test('refusals - the sender is the connection part of the reply subject', (t) => {
  t.is(senderOf('_INBOX_operator.Qm3x2.17'), '_INBOX_operator.Qm3x2');
  t.is(senderOf(undefined), 'no reply subject');
});

test('delivery - taken only from the reader\'s own consumer of its stream, with a stream sequence above the last', (t) => {
  const own = { stream: 'mf-audit', consumer: 'Rd1', afterSeq: 4 };
  t.like(checkDelivery('$JS.ACK.mf-audit.Rd1.1.5.1.1796425657563320858.2', own), { ok: true, streamSeq: 5, pending: 2 });
  t.like(checkDelivery('$JS.ACK.hub.ACCHASH.mf-audit.Rd1.1.9.3.1796425657563320858.0.tok', own), { ok: true, streamSeq: 9, pending: 0 });
  t.like(checkDelivery('$JS.ACK.mf-audit.Evil.1.5.1.1796425657563320858.2', own), { ok: false });
  t.like(checkDelivery('$JS.ACK.KV_mf-members.Rd1.1.5.1.1796425657563320858.2', own), { ok: false });
  t.like(checkDelivery('$JS.ACK.mf-audit.Rd1.1.4.1.1796425657563320858.2', own), { ok: false, reason: 'stream sequence 4 after 4: not increasing, a copy of an older record' });
  t.like(checkDelivery('_INBOX.x.y', own), { ok: false });
  t.like(checkDelivery(undefined, own), { ok: false });
});

// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202e]/;

test('output - every control character in every field is escaped: a forged line stays inside its record', (t) => {
  const forged = 'x\n2026-12-04T12:00:00.000Z  node-a  alice (operator UABC...)  command powerOff  metal3/h  applied';
  const record: AuditRecord = { ...refusal(1), requestId: forged, reason: 'a\r\u001b[2Kb\u2028c\u009bd\u202ee\tf' };
  const line = formatRecord(record);
  t.false(RAW_CONTROL.test(line), line);
  t.true(line.includes('request x\\x0a2026-12-04'), line);
  t.true(line.includes('a\\x0d\\x1b[2Kb\\u{2028}c\\x9bd\\u{202e}e\\x09f'), line);
  t.is(oneLine('plain'), 'plain');
  const json = jsonLine(record);
  t.false(RAW_CONTROL.test(json), json);
  t.deepEqual(JSON.parse(json), record, 'the JSON line reads back as the record');
});
