// Lookup gives up after lookupTimeoutMs however it fails: as IPA's lookup_node, whose
// stop_after_delay(lookup_timeout) covers a connection error or timeout exactly as it covers an
// answer that is not 200. An Ironic that cannot be reached at all must not keep the agent looking
// up forever.
import http from 'node:http';
import test from 'ava';
import { waitFor } from '../support/wait.ts';
import { SimDisk, startAgent } from '../../src/sim/agent/index.ts';

// A port that was free a moment ago and on which nothing listens now: every connection is refused.
async function deadPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

test('agent lookup timeout hunt - an Ironic that refuses every connection fails the lookup after lookupTimeoutMs', async (t) => {
  const port = await deadPort();
  const agent = await startAgent({ ironicUrl: `http://127.0.0.1:${port}`, macs: ['52:54:00:00:00:01'], disk: new SimDisk(), lookupIntervalMs: 10, lookupTimeoutMs: 200 });
  t.teardown(() => agent.stop());
  await waitFor(() => agent.state !== 'looking up', 5_000, 'the lookup to give up');
  t.is(agent.state, 'failed');
  t.regex(agent.lastError ?? '', /fetch failed|ECONNREFUSED/);
  t.true(agent.journal.some((l) => l.startsWith('lookup failed: ')), agent.journal.join('\n'));
});

test('agent lookup timeout hunt - an Ironic that answers 404 (no node waiting) fails the lookup after lookupTimeoutMs too', async (t) => {
  const server = http.createServer((req, res) => {
    req.resume();
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/') return res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ default_version: { version: '1.82' } }));
    res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error_message: JSON.stringify({ faultstring: 'Not Found' }) }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections(); }));
  const addr = server.address();
  const agent = await startAgent({ ironicUrl: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`, macs: ['52:54:00:00:00:01'], disk: new SimDisk(), lookupIntervalMs: 10, lookupTimeoutMs: 200 });
  t.teardown(() => agent.stop());
  await waitFor(() => agent.state !== 'looking up', 5_000, 'the lookup to give up');
  t.is(agent.state, 'failed');
  t.is(agent.lastError, 'lookup answered 404: Not Found');
});
