import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createIronicClient, IronicError } from '../../src/adapters/ironic/client/index.ts';
import type { IronicClient } from '../../src/adapters/ironic/client/index.ts';
import { freePort, startIronic } from '../support/ironic.ts';
import type { IronicServer } from '../support/ironic.ts';

// Failure paths. A real Ironic whose fake power calls take 3 s holds node locks long enough to
// meet a real 409 (its conductor itself waits up to 3 s for a lock before answering 409); a
// tiny local server plays the answers a healthy Ironic never gives.

let ironic: IronicServer;

test.before(async () => {
  ironic = await startIronic({ fakeDelays: { power: 3 } });
});

test.after.always(async () => {
  await ironic?.stop();
});

const FAST_RETRIES = { attempts: 3, baseMs: 5, maxMs: 20 };

interface Seen {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Reply = { status: number; body?: unknown; raw?: string; headers?: Record<string, string> } | 'hang';

/** A pretend Ironic: answers GET / and GET /v1/ with `max`, everything else with `reply`. */
async function fakeIronic(reply: (req: Seen, n: number) => Reply, o: { max?: string; min?: string } = {}): Promise<{ url: string; seen: Seen[]; setMax(v: string): void; close(): Promise<void> }> {
  let max = o.max ?? '1.82';
  const min = o.min ?? '1.1';
  const seen: Seen[] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const s: Seen = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      seen.push(s);
      const range = { 'X-OpenStack-Ironic-API-Minimum-Version': min, 'X-OpenStack-Ironic-API-Maximum-Version': max, 'Content-Type': 'application/json' };
      if (s.path === '/') {
        res.writeHead(200, range).end(JSON.stringify({ name: 'OpenStack Ironic API', versions: [{ id: 'v1', status: 'CURRENT', min_version: min, version: max }], default_version: { id: 'v1', min_version: min, version: max } }));
        return;
      }
      if (s.path === '/v1/') {
        res.writeHead(200, range).end(JSON.stringify({ id: 'v1', version: { id: 'v1', min_version: min, version: max } }));
        return;
      }
      const r = reply(s, n++);
      if (r === 'hang') return;
      res.writeHead(r.status, { ...range, ...r.headers }).end(r.raw ?? (r.body === undefined ? '' : JSON.stringify(r.body)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    setMax: (v) => {
      max = v;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An Ironic error body: a JSON string inside JSON. */
function fault(message: string): unknown {
  return { error_message: JSON.stringify({ faultcode: 'Client', faultstring: message, debuginfo: null }) };
}

const LOCKED = fault('Node 4bb0758a-5254-4827-8c9e-d649c887c84c is locked by host localhost, please retry after the current operation is completed.');
const NODE = { uuid: '4bb0758a-5254-4827-8c9e-d649c887c84c', name: 'ns~host', provision_state: 'available', power_state: 'power off', maintenance: false };

async function withClient<T>(c: IronicClient, fn: (c: IronicClient) => Promise<T>): Promise<T> {
  try {
    return await fn(c);
  } finally {
    c.close();
  }
}

test('ironic client - a real lock: retried with backoff until the node is free', async (t) => {
  const c = createIronicClient({ endpoint: ironic.url, lockedRetries: { attempts: 80, baseMs: 50, maxMs: 400 } });
  await withClient(c, async () => {
    await c.createNode({ name: 'err~locked', driver: 'fake-hardware' });
    // Powering on reads and sets the fake power state, 3 s each, holding the node's lock; the
    // conductor gives up waiting for it after 3 s and Ironic answers 409.
    await c.setPowerState('err~locked', 'power on');
    await c.setMaintenance('err~locked', 'while powering');
    t.true(c.stats.retries > 0, 'at least one 409 locked was met and retried');
    t.true((await c.getNode('err~locked'))?.maintenance);
    await c.deleteNode('err~locked');
  });
});

test('ironic client - a real lock outlasting the retries is thrown as retryable', async (t) => {
  const c = createIronicClient({ endpoint: ironic.url, lockedRetries: { attempts: 2, baseMs: 10, maxMs: 10 } });
  await withClient(c, async () => {
    await c.createNode({ name: 'err~locked-2', driver: 'fake-hardware' });
    await c.setPowerState('err~locked-2', 'power on');
    // "provide" is not allowed from enroll; while the node is reserved the API answers that with
    // 409 locked at once rather than 400, so every attempt meets the lock.
    const err = await t.throwsAsync(c.setProvisionState('err~locked-2', 'provide'), { instanceOf: IronicError });
    t.is(err?.code, 'locked');
    t.true(err?.retryable);
    t.is(err?.status, 409);
    t.is(err?.attempts, 2);
    t.regex(err?.message ?? '', /^PUT \/v1\/nodes\/err~locked-2\/states\/provision: Ironic answered HTTP 409 after 2 attempts: Node .* is locked by host localhost/);
    // The conductor lets go after the power call; delete then goes through (with retries).
    const patient = createIronicClient({ endpoint: ironic.url, lockedRetries: { attempts: 80, baseMs: 100, maxMs: 400 } });
    await withClient(patient, (p) => p.deleteNode('err~locked-2'));
  });
});

test('ironic client - 409 locked twice, then success: retried inside the client', async (t) => {
  const fake = await fakeIronic((_, n) => (n < 2 ? { status: 409, body: LOCKED } : { status: 202 }));
  const c = createIronicClient({ endpoint: fake.url, lockedRetries: { attempts: 5, baseMs: 5, maxMs: 20 } });
  try {
    await c.setProvisionState('ns~host', 'manage');
    const puts = fake.seen.filter((s) => s.method === 'PUT');
    t.is(puts.length, 3);
    t.is(c.stats.retries, 2);
    t.is(c.stats.byRoute['PUT /v1/nodes/{node}/states/provision'], 3);
    t.deepEqual(JSON.parse(puts[2]?.body ?? '{}'), { target: 'manage' });
  } finally {
    c.close();
    await fake.close();
  }
});

test('ironic client - 409 locked forever: thrown retryable after the configured attempts', async (t) => {
  const fake = await fakeIronic(() => ({ status: 409, body: LOCKED }));
  const c = createIronicClient({ endpoint: fake.url, lockedRetries: FAST_RETRIES });
  try {
    const err = await t.throwsAsync(c.patchNode('ns~host', [{ op: 'replace', path: '/name', value: 'x' }]), { instanceOf: IronicError });
    t.is(err?.code, 'locked');
    t.true(err?.retryable);
    t.is(err?.attempts, 3);
    t.is(fake.seen.filter((s) => s.method === 'PATCH').length, 3);
    t.regex(err?.message ?? '', /^PATCH \/v1\/nodes\/ns~host: Ironic answered HTTP 409 after 3 attempts: Node .* is locked/);
  } finally {
    c.close();
    await fake.close();
  }
});

test('ironic client - other 409s, 400 and 404 are not retried', async (t) => {
  const fake = await fakeIronic((s) => {
    if (s.method === 'POST') return { status: 409, body: fault('A node with name ns~host already exists.') };
    if (s.method === 'PUT') return { status: 400, body: fault('The requested action "active" can not be performed on node "x" while it is in state "enroll".') };
    return { status: 404, body: fault('Node ns~host could not be found.') };
  });
  const c = createIronicClient({ endpoint: fake.url, lockedRetries: FAST_RETRIES });
  try {
    const dup = await t.throwsAsync(c.createNode({ name: 'ns~host', driver: 'fake-hardware' }), { instanceOf: IronicError });
    t.is(dup?.code, 'conflict');
    t.false(dup?.retryable);
    t.is(dup?.attempts, 1);
    const bad = await t.throwsAsync(c.setProvisionState('ns~host', 'active'), { instanceOf: IronicError });
    t.is(bad?.code, 'bad-request');
    t.false(bad?.retryable);
    t.is(bad?.ironicMessage, 'The requested action "active" can not be performed on node "x" while it is in state "enroll".');
    const missing = await t.throwsAsync(c.patchNode('ns~host', []), { instanceOf: IronicError });
    t.is(missing?.code, 'not-found');
    t.false(missing?.retryable);
    t.is(await c.getNode('ns~host'), null);
    await t.notThrowsAsync(c.deleteNode('ns~host'));
    t.is(fake.seen.filter((s) => s.path !== '/' && s.path !== '/v1/').length, 5);
  } finally {
    c.close();
    await fake.close();
  }
});

test('ironic client - 503 and 500 are retryable and quote Ironic', async (t) => {
  const fake = await fakeIronic((s) => (s.method === 'GET'
    ? { status: 503, body: fault('Requested action cannot be performed due to lack of free conductor workers.') }
    : { status: 500, raw: 'Internal Server Error', headers: { 'Content-Type': 'text/plain' } }));
  const c = createIronicClient({ endpoint: fake.url });
  try {
    const busy = await t.throwsAsync(c.getNode('ns~host'), { instanceOf: IronicError });
    t.is(busy?.code, 'unavailable');
    t.true(busy?.retryable);
    t.is(busy?.status, 503);
    t.regex(busy?.message ?? '', /^GET \/v1\/nodes\/ns~host: Ironic answered HTTP 503: Requested action cannot be performed due to lack of free conductor workers\.$/);
    const broken = await t.throwsAsync(c.setPowerState('ns~host', 'power on'), { instanceOf: IronicError });
    t.is(broken?.code, 'unavailable');
    t.true(broken?.retryable);
    t.regex(broken?.message ?? '', /HTTP 500: Internal Server Error/);
  } finally {
    c.close();
    await fake.close();
  }
});

test('ironic client - an answer that is not JSON, or not a node, is an invalid response', async (t) => {
  const fake = await fakeIronic((s) => (s.path.endsWith('/a')
    ? { status: 200, raw: '<html>proxy login</html>', headers: { 'Content-Type': 'text/html' } }
    : { status: 200, body: { uuid: 42, provision_state: 'available' } }));
  const c = createIronicClient({ endpoint: fake.url });
  try {
    const notJson = await t.throwsAsync(c.getNode('a'), { instanceOf: IronicError });
    t.is(notJson?.code, 'invalid-response');
    t.false(notJson?.retryable);
    t.regex(notJson?.message ?? '', /^GET \/v1\/nodes\/a: Ironic's answer \(HTTP 200\) is not JSON/);
    const wrong = await t.throwsAsync(c.getNode('b'), { instanceOf: IronicError });
    t.is(wrong?.code, 'invalid-response');
    t.regex(wrong?.message ?? '', /unexpected shape at uuid/);
  } finally {
    c.close();
    await fake.close();
  }
});

test('ironic client - a request with no answer times out, retryable', async (t) => {
  const fake = await fakeIronic(() => 'hang');
  const c = createIronicClient({ endpoint: fake.url, timeoutMs: 200 });
  try {
    // The version is negotiated first (the fake answers it at once); on a loaded machine that
    // answer may itself miss 200 ms, which is this same timeout on another path: ask again.
    for (let attempt = 0; ; attempt++) {
      const negotiated = await c.connect().then(() => true, (e: unknown) => {
        if (!(e instanceof IronicError) || e.code !== 'timeout' || attempt >= 20) throw e;
        return false;
      });
      if (negotiated) break;
    }
    const started = Date.now();
    const err = await t.throwsAsync(c.getNode('ns~host'), { instanceOf: IronicError });
    t.is(err?.code, 'timeout');
    t.true(err?.retryable);
    t.is(err?.status, null);
    t.true(Date.now() - started < 5_000);
    t.regex(err?.message ?? '', /^GET \/v1\/nodes\/ns~host: Ironic at http:\/\/127\.0\.0\.1:\d+ gave no complete answer within 200 ms$/);
  } finally {
    c.close();
    await fake.close();
  }
});

test('ironic client - nobody listening is a retryable network error', async (t) => {
  const port = await freePort();
  const c = createIronicClient({ endpoint: `http://127.0.0.1:${port}` });
  const err = await t.throwsAsync(c.connect(), { instanceOf: IronicError });
  t.is(err?.code, 'network');
  t.true(err?.retryable);
  t.regex(err?.message ?? '', /cannot reach Ironic at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  c.close();
});

test('ironic client - refuses a server older than 1.81', async (t) => {
  const fake = await fakeIronic(() => ({ status: 200, body: NODE }), { max: '1.80' });
  const c = createIronicClient({ endpoint: fake.url });
  try {
    const err = await t.throwsAsync(c.connect(), { instanceOf: IronicError });
    t.is(err?.code, 'version');
    t.false(err?.retryable);
    t.regex(err?.message ?? '', /^GET \/v1\/: Ironic at http:\/\/127\.0\.0\.1:\d+ supports API versions up to 1\.80, but metalfleet needs 1\.81 or newer \(node inventory\): upgrade Ironic$/);
    await t.throwsAsync(c.getNode('ns~host'), { instanceOf: IronicError, message: /up to 1\.80/ });
    t.is(fake.seen.filter((s) => s.path.startsWith('/v1/nodes')).length, 0, 'no call goes out unnegotiated');
  } finally {
    c.close();
    await fake.close();
  }
});

test('ironic client - negotiates min(server, ours), refreshes after the TTL, and renegotiates after a 406', async (t) => {
  const fake = await fakeIronic((s) => (s.headers['x-openstack-ironic-api-version'] === '1.110'
    ? { status: 406, body: { error_message: JSON.stringify({ code: 406, title: 'Not Acceptable', description: 'Version 1.110 was requested but the minor version is not supported by this service. The supported version range is: [1.1, 1.95].' }) } }
    : { status: 200, body: NODE }), { max: '1.120' });
  const c = createIronicClient({ endpoint: fake.url, versionTtlMs: 100 });
  try {
    t.is((await c.connect()).text, '1.110', 'capped at the newest version the client knows');
    t.true(c.supports('deploy-abort'));
    fake.setMax('1.95');
    // Within the TTL the old version is still used: Ironic answers 406 and the version is forgotten.
    const err = await t.throwsAsync(c.getNode('ns~host'), { instanceOf: IronicError });
    t.is(err?.code, 'version');
    t.true(err?.retryable);
    t.regex(err?.message ?? '', /HTTP 406: Version 1\.110 was requested/);
    t.is(c.version, null);
    t.is((await c.getNode('ns~host'))?.uuid, NODE.uuid);
    t.is(c.version?.text, '1.95');
    t.true(c.supports('disable-power-off'));
    t.false(c.supports('health'));
    // A lazy refresh: once the TTL passed, the next call asks GET / and GET /v1/ again.
    fake.setMax('1.82');
    const deadline = Date.now() + 5_000;
    while (c.version?.text !== '1.82' && Date.now() < deadline) {
      await c.getNode('ns~host');
      await new Promise((r) => setTimeout(r, 20));
    }
    t.is(c.version?.text, '1.82');
    const last = fake.seen.at(-1);
    t.is(last?.headers['x-openstack-ironic-api-version'], '1.82');
  } finally {
    c.close();
    await fake.close();
  }
});

test('ironic client - auth headers for basic, bearer and keystone tokens', async (t) => {
  const fake = await fakeIronic(() => ({ status: 200, body: NODE }));
  const cases = [
    { auth: { type: 'basic' as const, username: 'ironic-user', password: 'basic-pw' }, header: 'authorization', value: `Basic ${Buffer.from('ironic-user:basic-pw').toString('base64')}` },
    { auth: { type: 'bearer' as const, token: 'bearer-token-1' }, header: 'authorization', value: 'Bearer bearer-token-1' },
    { auth: { type: 'keystone-token' as const, token: 'ks-token-1' }, header: 'x-auth-token', value: 'ks-token-1' },
  ];
  try {
    for (const k of cases) {
      fake.seen.length = 0;
      const c = createIronicClient({ endpoint: fake.url, auth: k.auth });
      await c.getNode('ns~host');
      c.close();
      t.true(fake.seen.length >= 3);
      for (const s of fake.seen) t.is(s.headers[k.header], k.value, `${k.auth.type} on ${s.method} ${s.path}`);
    }
    fake.seen.length = 0;
    const none = createIronicClient({ endpoint: fake.url });
    await none.getNode('ns~host');
    none.close();
    t.true(fake.seen.every((s) => s.headers.authorization === undefined && s.headers['x-auth-token'] === undefined));
    t.true(fake.seen.filter((s) => s.path.startsWith('/v1/nodes')).every((s) => s.headers['content-type'] === undefined && s.headers.accept === 'application/json'));
  } finally {
    await fake.close();
  }
});

test('ironic client - a 401 is an auth error', async (t) => {
  const fake = await fakeIronic(() => ({ status: 401, body: fault('The request you have made requires authentication.') }));
  const c = createIronicClient({ endpoint: fake.url, auth: { type: 'bearer', token: 'expired-token-xyz' } });
  try {
    const err = await t.throwsAsync(c.getNode('ns~host'), { instanceOf: IronicError });
    t.is(err?.code, 'auth');
    t.false(err?.retryable);
    t.false(`${err?.message} ${String(err?.cause)}`.includes('expired-token-xyz'));
  } finally {
    c.close();
    await fake.close();
  }
});

test('ironic client - no secret in errors, even from an Ironic that echoes everything', async (t) => {
  // Echoes the request's headers and body back in its fault, the way Ironic quotes bad input,
  // in Python's repr style and as JSON.
  const fake = await fakeIronic((s) => {
    const repr = s.body.replace(/"/g, "'");
    return { status: 400, body: fault(`Invalid input. Headers: ${JSON.stringify(s.headers)}. Body: ${s.body}. Repr: ${repr}. On instance: ${repr}`) };
  });
  const password = 'bmc-pw-9f8e7d';
  const token = 'bearer-tok-1a2b3c';
  const userData = "#cloud-config\nusers:\n  - name: core\n    passwd: 'user-data-pw-55aa'\n";
  const c = createIronicClient({ endpoint: fake.url, auth: { type: 'bearer', token } });
  try {
    const errors = await Promise.all([
      c.createNode({ name: 'ns~host', driver: 'redfish', driver_info: { redfish_address: 'https://192.0.2.1', redfish_username: 'admin', redfish_password: password } }).catch((e: unknown) => e),
      c.patchNode('ns~host', [{ op: 'replace', path: '/driver_info/redfish_password', value: password }]).catch((e: unknown) => e),
      c.patchNode('ns~host', [{ op: 'add', path: '/instance_info', value: { image_source: 'http://i/os.qcow2', image_pull_secret: password } }]).catch((e: unknown) => e),
      c.setProvisionState('ns~host', 'active', { configdrive: { user_data: userData, meta_data: { name: 'host' } } }).catch((e: unknown) => e),
      c.setProvisionState('ns~host', 'active', { configdrive: Buffer.from(userData).toString('base64') }).catch((e: unknown) => e),
    ]);
    for (const e of errors) {
      t.true(e instanceof IronicError);
      const err = e as IronicError;
      t.is(err.code, 'bad-request');
      const texts = [err.message, String(err.cause), err.ironicMessage ?? '', JSON.stringify(err)];
      for (const text of texts) {
        for (const secret of [password, token, 'user-data-pw-55aa', 'passwd:', Buffer.from(userData).toString('base64')]) {
          t.false(text.includes(secret), `${err.call} leaks ${secret}: ${text}`);
        }
      }
      t.regex(err.message, /\*{6}/);
    }
    // The call is named, and what is not secret still helps.
    const first = errors[0] as IronicError;
    t.regex(first.message, /^POST \/v1\/nodes: Ironic answered HTTP 400: Invalid input/);
    t.regex(first.message, /ns~host/);
  } finally {
    c.close();
    await fake.close();
  }
});

test('ironic client - TLS: trusts the given CA, refuses an unknown one (not retryable), or skips checks when insecure', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'metalfleet-tls-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    const key = readFileSync(join(dir, 'key.pem'), 'utf8');
    const server = https.createServer({ cert, key }, (req, res) => {
      const range = { 'X-OpenStack-Ironic-API-Minimum-Version': '1.1', 'X-OpenStack-Ironic-API-Maximum-Version': '1.82', 'Content-Type': 'application/json' };
      res.writeHead(200, range).end(JSON.stringify(req.url === '/' || req.url === '/v1/' ? { id: 'v1', version: { id: 'v1', min_version: '1.1', version: '1.82' } } : NODE));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const trusted = createIronicClient({ endpoint: url, tls: { ca: cert } });
      t.is((await trusted.getNode('ns~host'))?.uuid, NODE.uuid);
      trusted.close();
      const insecure = createIronicClient({ endpoint: url, tls: { insecure: true } });
      t.is((await insecure.connect()).text, '1.82');
      insecure.close();
      const unknown = createIronicClient({ endpoint: url });
      const err = await t.throwsAsync(unknown.connect(), { instanceOf: IronicError });
      t.is(err?.code, 'network');
      t.false(err?.retryable);
      t.regex(err?.message ?? '', /TLS verification of Ironic at https:\/\/127\.0\.0\.1:\d+ failed \(\w+\): check tls\.ca/);
      unknown.close();
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
