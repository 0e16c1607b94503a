// A record in the audit stream that is not one (cut short, not JSON, a field this version does
// not know) was counted with the deliveries refused as an attack: `readAudit` threw, so every
// host page of the dashboard showed "did not come from its own consumer ... (is someone
// delivering into its inbox?)" and no commands at all, for the 30 days the stream keeps it, and
// `metalfleet audit` failed every time with the same accusation. Now such a record is skipped
// and said by its stream sequence and why; the records around it are shown, and only deliveries
// from another consumer are refused as before.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { connectNats, subjects } from '../../src/bus/index.ts';
import { AUDIT_STREAM, ensureAuditStream, readAudit, readAuditChecked, type AuditRecord } from '../../src/security/index.ts';
import { recentCommands } from '../../src/ui/host-commands.ts';
import { lines, metalfleet } from '../cli/run.ts';
import { natsServerInstalled, startNatsServer } from '../support/nats-server.ts';

if (!natsServerInstalled()) test('audit unreadable - nats-server is installed', (t) => t.fail('nats-server is missing: these tests need a real server'));

function record(requestId: string, host: string, at: string): AuditRecord {
  return {
    at, node: 'a', action: 'command', command: 'powerOff', host, requestId,
    caller: { kind: 'signed', signer: `U${'A'.repeat(55)}`, name: 'alice', role: 'operator' }, signedAt: at, outcome: 'applied', code: null, reason: null,
  };
}

async function streamWithDamage(t: ExecutionContext): Promise<string> {
  const nats = await startNatsServer();
  t.teardown(() => nats.dispose());
  const node = await connectNats({ servers: nats.url, name: 'writer' });
  t.teardown(() => node.close());
  await ensureAuditStream(node, subjects());
  const put = async (data: Uint8Array): Promise<void> => {
    const ack = JSON.parse(new TextDecoder().decode(await node.request(subjects().audit('command'), data, { timeoutMs: 5_000 }))) as { error?: unknown };
    if (ack.error) throw new Error(JSON.stringify(ack.error));
  };
  const json = (o: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(o));
  await put(json(record('r1', 'metal3/a', '2026-12-04T08:00:00.000Z')));
  await put(json(record('r2', 'metal3/a', '2026-12-04T08:01:00.000Z')).slice(0, 60)); // seq 2: cut short
  await put(json({ ...record('r3', 'metal3/a', '2026-12-04T08:02:00.000Z'), newField: 1 })); // seq 3: a field this version does not know
  await put(new Uint8Array([0x93, 0x01, 0x02, 0x0a, 0x1b])); // seq 4: not text at all
  await put(json(record('r5', 'metal3/b', '2026-12-04T08:04:00.000Z')));
  await put(json(record('r6', 'metal3/a', '2026-12-04T08:05:00.000Z')));
  return nats.url;
}

test('audit unreadable - records that are not audit records are skipped and said by sequence; the others are read, and readAudit does not fail', async (t) => {
  const url = await streamWithDamage(t);
  const reader = await connectNats({ servers: url, name: 'reader' });
  t.teardown(() => reader.close());
  const read = await readAuditChecked(reader, subjects());
  t.deepEqual(read.records.map((r) => r.requestId), ['r1', 'r5', 'r6']);
  t.is(read.refused, 0, 'nothing was delivered by another consumer');
  t.is(read.unreadable, 3);
  t.is(read.unreadableReasons.length, 3);
  t.regex(read.unreadableReasons[0] ?? '', new RegExp(`^${AUDIT_STREAM} sequence 2: not JSON \\(cut short\\?\\)$`));
  t.regex(read.unreadableReasons[1] ?? '', new RegExp(`^${AUDIT_STREAM} sequence 3: not an audit record of this version: .*newField`));
  t.regex(read.unreadableReasons[2] ?? '', new RegExp(`^${AUDIT_STREAM} sequence 4: not JSON$`));
  for (const reason of read.unreadableReasons) t.notRegex(reason, /[^\x20-\x7e]/, 'printable only');

  t.deepEqual((await readAudit(reader, subjects(), { host: 'metal3/a' })).map((r) => r.requestId), ['r1', 'r6']);
  // The dashboard's host page: its commands, not an accusation.
  const page = await recentCommands(reader, 'metal3/a', 10_000);
  t.true(page.ok, JSON.stringify(page));
  if (page.ok) t.deepEqual(page.commands.map((c) => c.at), ['2026-12-04T08:05:00.000Z', '2026-12-04T08:00:00.000Z']);
});

test('audit unreadable - metalfleet audit shows the readable records, warns once naming the skipped ones, and exits 0', async (t) => {
  const url = await streamWithDamage(t);
  for (const json of [false, true]) {
    const r = await metalfleet('audit', '--nats', url, ...(json ? ['--json'] : []));
    t.is(r.code, 0, r.stderr);
    t.is(lines(r.stdout).length, 3, r.stdout);
    t.regex(r.stdout, /r1[\s\S]*r5[\s\S]*r6/);
    t.deepEqual(lines(r.stderr), [
      `metalfleet: warning: 3 records of the audit could not be read and are not shown: ${AUDIT_STREAM} sequence 2: not JSON (cut short?); `
        + `${AUDIT_STREAM} sequence 3: not an audit record of this version: unrecognized key "newField"; ${AUDIT_STREAM} sequence 4: not JSON`,
    ]);
    t.notRegex(r.stderr, /delivering into its inbox/);
  }
});
