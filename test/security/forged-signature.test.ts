// A request naming an allow-listed key whose signature does not verify was recorded as signed by
// that key: a 64-byte zero signature under alice's public key put `alice (operator ...)` in the
// audit, its JSON and the node's log, so anyone on the bus could write records under any
// allow-listed name. Now a caller is `signed` only once its signature verified; until then it is
// `unverified`, with the key only as the key it claimed, never the allow-list's name or role.
import test from 'ava';
import { unpack } from 'msgpackr';
import { shardOf } from '../../src/api/index.ts';
import { encode, subjects } from '../../src/bus/index.ts';
import { readAudit, signRequest, type AuditRecord } from '../../src/security/index.ts';
import { lines, metalfleet } from '../cli/run.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { securityWorld, SHARDS } from './security-world.ts';

if (!natsServerInstalled()) test('forged signature - nats-server is installed', (t) => t.fail('nats-server is missing: these tests need a real server'));

test('forged signature - a delete under alice\'s key with a zero signature is refused and recorded as unverified, never as alice, in the audit, its JSON, its text and the node\'s log', async (t) => {
  const w = await securityWorld(t);
  const key = await w.provisioned('host-7');
  const subject = subjects().command(shardOf(key, SHARDS));
  const genuine = signRequest(w.operator, subject, { type: 'delete', host: key, requestId: 'forged-by-mallory' });
  const forged = { ...genuine, signature: new Uint8Array(64) };
  const reply = unpack((await w.raw.request(subject, encode(forged), { timeout: 5_000 })).data) as { ok: boolean; error?: { kind: string; message: string } };
  t.false(reply.ok);
  t.is(reply.error?.kind, 'unauthorized');
  t.regex(reply.error?.message ?? '', /^bad signature for the key of alice /);
  t.notRegex(reply.error?.message ?? '', /bad signature from alice/);
  const host = await w.store.getFresh!(key);
  t.is(host?.metadata.deletionTimestamp, undefined, 'the host stays');

  // Refusals of senders not vouched for are counted, then written: written now.
  await w.audit.flush();
  const records = (await readAudit(w.client, subjects(), { host: key })).filter((r) => r.requestId === 'forged-by-mallory');
  t.is(records.length, 1, JSON.stringify(records));
  const record = records[0] as AuditRecord;
  t.deepEqual(record.caller, { kind: 'unverified', signer: w.operator.publicKey });
  t.like(record, { action: 'command', command: 'delete', outcome: 'refused', code: 'unauthorized' });

  // The node's log says the same: no allow-list name or role for the forged caller.
  const warned = w.logLines.map((l) => JSON.parse(l) as { caller?: Record<string, unknown>; msg?: string }).filter((l) => l.msg === 'command refused');
  t.is(warned.length, 1, w.logLines.join('\n'));
  for (const l of warned) t.deepEqual(l.caller, { kind: 'unverified', signer: w.operator.publicKey }, JSON.stringify(l));

  // `metalfleet audit`, as a user reads it.
  const json = await metalfleet('audit', '--nats', w.nats.url, '--host', key, '--json');
  t.is(json.code, 0, json.stderr);
  const shown = lines(json.stdout).map((l) => JSON.parse(l) as AuditRecord).filter((r) => r.requestId === 'forged-by-mallory');
  t.deepEqual(shown.map((r) => r.caller), [{ kind: 'unverified', signer: w.operator.publicKey }]);
  const text = await metalfleet('audit', '--nats', w.nats.url, '--host', key);
  t.is(text.code, 0, text.stderr);
  const line = lines(text.stdout).find((l) => l.includes('request forged-by-mallory')) ?? '';
  t.regex(line, new RegExp(`  unverified key ${w.operator.publicKey.slice(0, 12)}\\.\\.\\.  command delete  `), text.stdout);
  t.notRegex(line, /alice \(operator/);

  // A good signature of the same key still records alice.
  const good = unpack((await w.raw.request(subject, encode(signRequest(w.operator, subject, { type: 'pause', host: key, requestId: 'alice-1' })), { timeout: 5_000 })).data) as { ok: boolean };
  t.true(good.ok);
  const taken = (await readAudit(w.client, subjects(), { host: key })).find((r) => r.requestId === 'alice-1');
  t.deepEqual(taken?.caller, { kind: 'signed', signer: w.operator.publicKey, name: 'alice', role: 'operator' });
});
