// The agent simulator against what a newer Ironic answers, from a small stand-in of its ramdisk
// API (api/controllers/v1/ramdisk.py): heartbeats refused as Ironic >= 26 refuses a plain-http
// callback ([agent] require_tls), and agent inspection through /v1/continue_inspection (1.84).
import http from 'node:http';
import test from 'ava';
import { SimDisk, startAgent } from '../../src/sim/agent/index.ts';
import type { Refusal, SimAgent } from '../../src/sim/agent/index.ts';
import { waitFor } from '../support/wait.ts';

const NODE = '1be26c0b-03f2-4d2d-ae87-c02d7f33c123';
const TLS_FAULT = 'TLS is required by configuration, callback_url http://127.0.0.1:1 is not https';
interface Seen { readonly method: string; readonly path: string; readonly version: string; readonly at: number; readonly body: string }

// refuse: whether heartbeats get Ironic's 400; maxVersion: what GET / offers.
async function fakeIronic(o: { refuse: boolean; maxVersion: string }): Promise<{ url: string; seen: Seen[]; setRefuse(v: boolean): void; close(): Promise<void> }> {
  const seen: Seen[] = [];
  let refuse = o.refuse;
  const fault = (res: http.ServerResponse, code: number, text: string): void => {
    res.writeHead(code, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error_message: JSON.stringify({ faultstring: text, faultcode: 'Client' }) }));
  };
  const lookupAnswer = JSON.stringify({ node: { uuid: NODE }, config: { agent_token: 'tok-1', heartbeat_timeout: 300 } });
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      seen.push({ method: req.method ?? '', path, version: String(req.headers['x-openstack-ironic-api-version'] ?? ''), at: Date.now(), body });
      if (path === '/') return res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ default_version: { version: o.maxVersion } }));
      if (path === '/v1/lookup') return res.writeHead(200, { 'Content-Type': 'application/json' }).end(lookupAnswer);
      if (path === '/v1/continue_inspection') return res.writeHead(202, { 'Content-Type': 'application/json' }).end(lookupAnswer);
      if (path === `/v1/heartbeat/${NODE}`) return refuse ? fault(res, 400, TLS_FAULT) : res.writeHead(202).end();
      fault(res, 404, 'not found');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    setRefuse: (v) => (refuse = v),
    close: () => new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    }),
  };
}

const macs = ['52:54:00:aa:00:01', '52:54:00:aa:00:02'];
let agent: SimAgent | null = null;
test.afterEach.always(async () => {
  await agent?.stop();
  agent = null;
});

test.serial('refused heartbeats are reported with status and message, retried later and later, and reset once accepted', async (t) => {
  const ironic = await fakeIronic({ refuse: true, maxVersion: '1.96' });
  t.teardown(() => ironic.close());
  const reports: Refusal[] = [];
  agent = await startAgent({ ironicUrl: ironic.url, macs, disk: new SimDisk(), heartbeatIntervalMs: 60_000, minHeartbeatGapMs: 100, onRefused: (r) => reports.push(r) });
  const a = agent;
  await waitFor(() => a.refusals >= 5, 20_000, 'five refused heartbeats');
  const beats = ironic.seen.filter((s) => s.path.startsWith('/v1/heartbeat/'));
  // A timer never fires early: each gap is at least the doubled delay (100, 200, 400, 800 ms).
  const gaps = beats.slice(1, 5).map((b, i) => b.at - (beats[i]?.at ?? 0));
  gaps.forEach((g, i) => t.true(g >= 100 * 2 ** i - 5, `gap ${i}: ${g} ms, want >= ${100 * 2 ** i}`));
  // Reported with Ironic's status and message: on the 1st, 2nd and 4th refusal, not each one.
  t.deepEqual(reports.slice(0, 3).map((r) => r.count), [1, 2, 4]);
  t.is(reports[0]?.status, 400);
  t.is(reports[0]?.message, TLS_FAULT);
  t.is(a.lastError, `heartbeat answered 400: ${TLS_FAULT}`);
  t.true(a.journal.some((l) => l.includes('heartbeat refused by Ironic (HTTP 400)') && l.includes(TLS_FAULT)));
  ironic.setRefuse(false);
  await waitFor(() => a.heartbeats >= 1, 20_000, 'an accepted heartbeat');
  t.is(a.refusals, 0);
  t.is(a.lastError, null);
});

test.serial('agent inspection: the inventory goes to continue_inspection at 1.84, whose answer replaces the lookup', async (t) => {
  const ironic = await fakeIronic({ refuse: false, maxVersion: '1.96' });
  t.teardown(() => ironic.close());
  agent = await startAgent({ ironicUrl: ironic.url, macs, disk: new SimDisk(), heartbeatIntervalMs: 60_000, minHeartbeatGapMs: 0, inspectionCallbackUrl: `${ironic.url}/v1/continue_inspection` });
  const a = agent;
  await waitFor(() => a.heartbeats >= 1, 10_000, 'a heartbeat after inspection');
  t.true(a.inspected);
  t.is(a.nodeUuid, NODE);
  t.false(ironic.seen.some((s) => s.path === '/v1/lookup'), 'no lookup: continue_inspection answered node and token');
  const post = ironic.seen.find((s) => s.path === '/v1/continue_inspection');
  t.is(post?.version, '1.84');
  const data = JSON.parse(post?.body ?? '{}') as { inventory: { interfaces: Array<{ name: string; mac_address: string }>; cpu: { architecture: string }; boot: { pxe_interface: string } } };
  t.deepEqual(data.inventory.interfaces.map((i) => i.mac_address), macs);
  t.true(data.inventory.interfaces.every((i) => i.name !== ''));
  t.is(data.inventory.cpu.architecture, 'x86_64');
  t.is(data.inventory.boot.pxe_interface, macs[0] ?? '');
  const beat = ironic.seen.find((s) => s.path.startsWith('/v1/heartbeat/'));
  t.is((JSON.parse(beat?.body ?? '{}') as { agent_token?: string }).agent_token, 'tok-1');
});

test.serial('agent inspection against an Ironic below 1.84 is reported and the agent looks itself up instead', async (t) => {
  const ironic = await fakeIronic({ refuse: false, maxVersion: '1.82' });
  t.teardown(() => ironic.close());
  const reports: Refusal[] = [];
  agent = await startAgent({ ironicUrl: ironic.url, macs, disk: new SimDisk(), heartbeatIntervalMs: 60_000, minHeartbeatGapMs: 0, inspectionCallbackUrl: `${ironic.url}/v1/continue_inspection`, onRefused: (r) => reports.push(r) });
  const a = agent;
  await waitFor(() => a.heartbeats >= 1, 10_000, 'a heartbeat after lookup');
  t.false(a.inspected);
  t.false(ironic.seen.some((s) => s.path === '/v1/continue_inspection'), 'nothing posted to an Ironic that does not serve it');
  t.is(reports[0]?.call, 'continue_inspection');
  t.regex(reports[0]?.message ?? '', /serves API 1\.82; continue_inspection needs 1\.84/);
});
