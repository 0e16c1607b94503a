// Two nodes starting together both find the audit streams missing and both create them. A
// clustered JetStream answers the loser with "stream name already in use" or, while the
// winner's create is still being proposed, "subjects overlap"; either way the stream now
// exists and the node starts. A refusal with no stream behind it still stops the node.
import test from 'ava';
import { subjects } from '../../src/bus/index.ts';
import { ensureAuditStream } from '../../src/security/index.ts';
import type { Transport } from '../../src/ports/index.ts';

type Reply = { error?: { code: number; err_code?: number; description?: string } } & Record<string, unknown>;

/** A transport that answers JetStream API calls from a script, one reply per call, and records them. */
function scriptedJs(replies: Record<string, Reply[]>): { transport: Transport; calls: string[] } {
  const calls: string[] = [];
  const encode = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));
  const transport = {
    name: 'scripted',
    maxPayload: 1024 * 1024,
    request: (subject: string) => {
      const api = subject.replace('$JS.API.', '');
      calls.push(api);
      const next = replies[api]?.shift();
      if (!next) return Promise.reject(new Error(`unscripted call ${api}`));
      return Promise.resolve(encode(next));
    },
  } as unknown as Transport;
  return { transport, calls };
}

const notFound: Reply = { error: { code: 404, err_code: 10059, description: 'stream not found' } };
const overlap: Reply = { error: { code: 400, err_code: 10065, description: 'subjects overlap with an existing stream' } };
const exists: Reply = { config: {} };

test('audit stream - losing a create race to "subjects overlap" is fine once the stream is there', async (t) => {
  const { transport, calls } = scriptedJs({
    'STREAM.INFO.mf-audit': [exists],
    'STREAM.INFO.mf-audit-refusals': [notFound, exists],
    'STREAM.CREATE.mf-audit-refusals': [overlap],
  });
  await t.notThrowsAsync(ensureAuditStream(transport, subjects()));
  t.deepEqual(calls, ['STREAM.INFO.mf-audit', 'STREAM.INFO.mf-audit-refusals', 'STREAM.CREATE.mf-audit-refusals', 'STREAM.INFO.mf-audit-refusals']);
});

test('audit stream - "name already in use" is taken as created without another look', async (t) => {
  const { transport, calls } = scriptedJs({
    'STREAM.INFO.mf-audit': [notFound],
    'STREAM.CREATE.mf-audit': [{ error: { code: 400, err_code: 10058, description: 'stream name already in use' } }],
    'STREAM.INFO.mf-audit-refusals': [exists],
  });
  await t.notThrowsAsync(ensureAuditStream(transport, subjects()));
  t.deepEqual(calls, ['STREAM.INFO.mf-audit', 'STREAM.CREATE.mf-audit', 'STREAM.INFO.mf-audit-refusals']);
});

test('audit stream - a refused create with no stream behind it stops the node with the server\'s reason', async (t) => {
  const { transport } = scriptedJs({
    'STREAM.INFO.mf-audit': [notFound, notFound],
    'STREAM.CREATE.mf-audit': [overlap],
  });
  const error = await t.throwsAsync(ensureAuditStream(transport, subjects()));
  t.regex(error?.message ?? '', /audit stream mf-audit: cannot create mf-audit: subjects overlap with an existing stream/);
});
