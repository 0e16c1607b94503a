import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import test from 'ava';
import { createMaasClient, MaasError } from '../../src/adapters/maas/client/index.ts';
import type { MaasClient, MaasClientOptions } from '../../src/adapters/maas/client/index.ts';
import { waitFor } from '../support/wait.ts';

// The wire format and the failure paths, against a tiny local server of this file that records
// what it gets and answers what each test tells it to: the answers a healthy MAAS rarely gives.

const CK = 'Kc7Hq2WnRt5YpLm9Xa';
const TK = 'Tb3Vz8QeUj1GsNd6Fh';
const TS = 'Sx4Mw9Ck2Rp7Ln5Qz1Hv8By3Gt6Dj0Fa';
const API_KEY = `${CK}:${TK}:${TS}`;
const USER_DATA = '#cloud-config\nchpasswd:\n  list: root:user-data-secret-value\n';
const USER_DATA_B64 = Buffer.from(USER_DATA).toString('base64');
const FAST = { attempts: 3, baseMs: 5, maxMs: 20 };

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Reply = { status: number; json?: unknown; text?: string; headers?: Record<string, string> } | 'hang' | 'destroy';

interface Fake {
  /** e.g. http://127.0.0.1:PORT/MAAS */
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

async function fakeMaas(reply: (req: Seen, n: number) => Reply): Promise<Fake> {
  const seen: Seen[] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const s: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      seen.push(s);
      const r = reply(s, n++);
      if (r === 'hang') return;
      if (r === 'destroy') {
        req.socket.destroy();
        return;
      }
      if (r.json !== undefined) res.writeHead(r.status, { 'Content-Type': 'application/json', ...r.headers }).end(JSON.stringify(r.json));
      else res.writeHead(r.status, { 'Content-Type': 'text/plain; charset=utf-8', ...r.headers }).end(r.text ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/MAAS`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function withFake(reply: (req: Seen, n: number) => Reply, o: Partial<MaasClientOptions>, fn: (c: MaasClient, f: Fake) => Promise<void>): Promise<void> {
  const f = await fakeMaas(reply);
  const c = createMaasClient({ endpoint: f.url, apiKey: API_KEY, retries: FAST, ...o });
  try {
    await fn(c, f);
  } finally {
    c.close();
    await f.close();
  }
}

function machine(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    system_id: 'abc123', hostname: 'node-1', fqdn: 'node-1.maas', status: 10, status_name: 'Allocated', power_state: 'off', power_type: 'ipmi',
    ip_addresses: [], zone: { id: 1, name: 'az1' }, pool: { id: 0, name: 'default' }, domain: { id: 0, name: 'maas' }, cpu_count: 4, memory: 8192,
    tag_names: ['gpu', 'ssd'], osystem: '', distro_series: '', swap_size: null, owner: 'admin', storage: 100000, boot_interface: { id: 1, name: 'eth0' }, ...over,
  };
}
const DNS = { id: 7, fqdn: 'c1-3f9a2b.maas', address_ttl: 10, ip_addresses: [{ ip: '10.0.0.5', alloc_type: 4 }], resource_records: [] };

function form(body: string): Array<[string, string]> {
  return [...new URLSearchParams(body).entries()];
}

function oauth(h: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of (h ?? '').replace(/^OAuth /, '').matchAll(/([a-z_]+)="([^"]*)"/g)) out[m[1] as string] = decodeURIComponent(m[2] as string);
  return out;
}

// A verifier written apart from the client's signer: RFC 5849 from the request as received.
function hmacValid(s: Seen, host: string): boolean {
  const p = oauth(s.headers.authorization);
  const enc = (x: string): string => encodeURIComponent(x).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  const [path, query = ''] = s.url.split('?') as [string, string?];
  const params: Array<[string, string]> = Object.entries(p).filter(([k]) => k !== 'oauth_signature' && k !== 'realm');
  params.push(...new URLSearchParams(query).entries());
  if (s.method === 'POST') params.push(...new URLSearchParams(s.body).entries());
  const norm = params.map(([k, v]) => `${enc(k)}=${enc(v)}`).sort().join('&');
  const base = `${s.method}&${enc(`http://${host}${path}`)}&${enc(norm)}`;
  return createHmac('sha1', `&${enc(TS)}`).update(base).digest('base64') === p.oauth_signature;
}

/** Every place an error could carry text: message, fields, cause chain, JSON and inspect. */
function everyText(err: unknown): string {
  const parts: string[] = [inspect(err, { depth: 10 }), JSON.stringify(err)];
  for (let e: unknown = err; e instanceof Error; e = e.cause) parts.push(e.message, e.stack ?? '');
  return parts.join('\n');
}

function assertNoSecret(t: { false: (v: boolean, m?: string) => void }, err: unknown): void {
  const text = everyText(err);
  for (const secret of [CK, TK, TS, USER_DATA_B64, 'user-data-secret-value', USER_DATA_B64.slice(8, 40)]) {
    t.false(text.includes(secret), `no ${secret.slice(0, 6)}… in the error`);
  }
}

// ---------------------------------------------------------------------------- wire format

test('maas client - allocate: POST /machines/, op in the sorted body, tags repeated, Accept json, PLAINTEXT', async (t) => {
  await withFake(() => ({ status: 200, json: machine() }), {}, async (c, f) => {
    const m = await c.allocate({ cpuCount: 4, memMb: 8192, zone: 'az1', pool: 'default', tags: ['ssd', 'gpu'], notPod: true });
    t.is(m.system_id, 'abc123');
    t.is(m.zone.name, 'az1');
    t.deepEqual((m as Record<string, unknown>).boot_interface, { id: 1, name: 'eth0' }, 'unknown fields are kept');
    const s = f.seen[0] as Seen;
    t.is(s.method, 'POST');
    t.is(s.url, '/MAAS/api/2.0/machines/');
    t.is(s.body, 'cpu_count=4&mem=8192&not_pod=true&op=allocate&pool=default&tags=ssd&tags=gpu&zone=az1');
    t.is(s.headers['content-type'], 'application/x-www-form-urlencoded');
    t.is(s.headers.accept, 'application/json');
    t.regex(s.headers.authorization ?? '', /^OAuth realm="MAAS API", /);
    t.like(oauth(s.headers.authorization), { oauth_consumer_key: CK, oauth_token: TK, oauth_signature_method: 'PLAINTEXT', oauth_signature: `&${TS}`, oauth_version: '1.0' });
    t.regex(oauth(s.headers.authorization).oauth_timestamp ?? '', /^\d{10}$/);
    t.deepEqual(c.stats.byRoute, { 'POST /machines/ op=allocate': 1 });
  });
});

test('maas client - op placement: deploy and release in the body, power_on in the path; GET params in the query', async (t) => {
  await withFake((s) => ({ status: 200, json: s.url.startsWith('/MAAS/api/2.0/machines/?') ? [machine()] : machine() }), {}, async (c, f) => {
    await c.deploy('abc123', { userDataBase64: USER_DATA_B64, osystem: 'ubuntu', distroSeries: 'jammy', ephemeralDeploy: false, comment: 'by metalfleet' });
    await c.release('abc123', { erase: true, comment: 'bye' });
    await c.release('abc123');
    await c.powerOn('abc123', { comment: 'wake up & go' });
    await c.powerOn('abc123');
    await c.listMachines({ hostname: ['node-2', 'node-1'], zone: 'az1' });
    await c.getMachine('abc123');
    await c.updateMachine('abc123', { swapSize: 0 });
    const [deploy, release, releasePlain, power, powerPlain, list, get, put] = f.seen as [Seen, Seen, Seen, Seen, Seen, Seen, Seen, Seen];
    t.is(deploy.url, '/MAAS/api/2.0/machines/abc123/');
    t.deepEqual(form(deploy.body), [['comment', 'by metalfleet'], ['distro_series', 'jammy'], ['ephemeral_deploy', 'false'], ['op', 'deploy'], ['osystem', 'ubuntu'], ['user_data', USER_DATA_B64]]);
    t.is(release.body, 'comment=bye&erase=true&op=release');
    t.is(releasePlain.body, 'op=release', 'no erase or force unless asked, as CAPMAAS');
    t.is(power.url, '/MAAS/api/2.0/machines/abc123/op-power_on');
    t.is(power.body, 'comment=wake%20up%20%26%20go', 'the comment is encoded once');
    t.is(powerPlain.body, '');
    t.is(list.method, 'GET');
    t.is(list.url, '/MAAS/api/2.0/machines/?hostname=node-2&hostname=node-1&zone=az1');
    t.is(list.body, '');
    t.is(list.headers['content-type'], undefined);
    t.is(get.url, '/MAAS/api/2.0/machines/abc123/');
    t.is(put.method, 'PUT');
    t.is(put.body, 'swap_size=0');
    t.deepEqual(c.stats.byRoute, {
      'POST /machines/{id}/ op=deploy': 1,
      'POST /machines/{id}/ op=release': 2,
      'POST /machines/{id}/op-power_on': 2,
      'GET /machines/': 1,
      'GET /machines/{id}/': 1,
      'PUT /machines/{id}/': 1,
    });
    t.is(c.stats.total, 8);
    c.stats.reset();
    t.is(c.stats.total, 0);
    t.deepEqual(c.stats.byRoute, {});
  });
});

test('maas client - DNS calls: fqdn in the query, ip_addresses space-joined, PUT replaces, DELETE of a gone one is fine', async (t) => {
  await withFake((s, n) => {
    if (s.method === 'GET') return { status: 200, json: [DNS] };
    if (s.method === 'DELETE') return n === 4 ? { status: 204 } : { status: 404, text: 'No DNSResource matches the given query.' };
    return { status: 200, json: DNS };
  }, {}, async (c, f) => {
    t.deepEqual((await c.listDnsResources({ fqdn: 'c1-3f9a2b.maas' })).map((d) => d.ip_addresses.map((i) => i.ip)), [['10.0.0.5']]);
    await c.createDnsResource({ fqdn: 'c1-3f9a2b.maas', addressTtl: 10, ipAddresses: [] });
    await c.updateDnsResource(7, { ipAddresses: ['10.0.0.5', 'fd00::5'] });
    await c.updateDnsResource(7, { ipAddresses: [] });
    await c.deleteDnsResource(7);
    await c.deleteDnsResource(7);
    const [list, create, update, wipe, del] = f.seen as [Seen, Seen, Seen, Seen, Seen];
    t.is(list.url, '/MAAS/api/2.0/dnsresources/?fqdn=c1-3f9a2b.maas');
    t.is(create.body, 'address_ttl=10&fqdn=c1-3f9a2b.maas&ip_addresses=');
    t.is(update.url, '/MAAS/api/2.0/dnsresources/7/');
    t.is(update.method, 'PUT');
    t.is(update.body, 'ip_addresses=10.0.0.5%20fd00%3A%3A5');
    t.is(wipe.body, 'ip_addresses=', 'an empty set is sent, which empties the record');
    t.is(del.method, 'DELETE');
    t.is(f.seen.length, 6);
  });
});

test('maas client - HMAC-SHA1 requests verify with an independent verifier, multi tags and query included', async (t) => {
  let host = '';
  await withFake((s) => ({ status: 200, json: s.method === 'GET' ? [machine()] : machine() }), { signature: 'HMAC-SHA1' }, async (c, f) => {
    host = new URL(f.url).host;
    await c.allocate({ tags: ['ssd', 'gpu'], cpuCount: 2, zone: 'az 1' });
    await c.listMachines({ hostname: ['b', 'a'] });
    await c.updateMachine('abc123', { swapSize: '2G', hostname: 'n 1' });
    await c.powerOn('abc123', { comment: "it's * (now)!" });
    for (const s of f.seen) {
      t.true(hmacValid(s, host), `${s.method} ${s.url} ${s.body} verifies`);
      t.false(s.headers.authorization?.includes('realm'));
      t.is(oauth(s.headers.authorization).oauth_signature_method, 'HMAC-SHA1');
    }
    const nonces = new Set(f.seen.map((s) => oauth(s.headers.authorization).oauth_nonce));
    t.is(nonces.size, f.seen.length, 'a fresh nonce per request');
  });
});

// ---------------------------------------------------------------------------- errors

const NO_MATCH = 'No available machine matches constraints: [(\'cpu_count\', [\'64\']), (\'tags\', [\'gpu\'])] (resolved to "cpu_count=64.0 tags=gpu")';

test('maas client - 409 on allocate is no-match with MAAS\'s text; 409 elsewhere is conflict', async (t) => {
  await withFake((s) => ({ status: 409, text: s.body.includes('allocate') ? NO_MATCH : "Can't deploy a machine that is in the 'Deployed' state" }), {}, async (c, f) => {
    const err = await t.throwsAsync(c.allocate({ cpuCount: 64, tags: ['gpu'] }), { instanceOf: MaasError });
    t.is(err?.code, 'no-match');
    t.is(err?.status, 409);
    t.false(err?.retryable);
    t.is(err?.maasMessage, NO_MATCH);
    t.is(err?.call, 'POST /machines/ op=allocate');
    t.is(err?.route, 'POST /machines/ op=allocate');
    t.true(err?.message.startsWith('POST /machines/ op=allocate: MAAS answered HTTP 409: No available machine matches constraints'));
    const dep = await t.throwsAsync(c.deploy('abc123', { distroSeries: 'jammy' }), { instanceOf: MaasError });
    t.is(dep?.code, 'conflict');
    t.is(dep?.call, 'POST /machines/abc123/ op=deploy');
    t.is(dep?.route, 'POST /machines/{id}/ op=deploy');
    t.is(dep?.maasMessage, "Can't deploy a machine that is in the 'Deployed' state");
    t.is(f.seen.length, 2, 'nothing retried');
  });
});

test('maas client - 400 form errors JSON become formErrors and a readable message', async (t) => {
  await withFake(() => ({ status: 400, json: { tags: ["No such tag(s): 'nope'."], zone: ['No such zone(s): mars.'] } }), {}, async (c) => {
    const err = await t.throwsAsync(c.allocate({ tags: ['nope'], zone: 'mars' }), { instanceOf: MaasError });
    t.is(err?.code, 'bad-request');
    t.is(err?.status, 400);
    t.deepEqual(err?.formErrors, { tags: ["No such tag(s): 'nope'."], zone: ['No such zone(s): mars.'] });
    t.is(err?.maasMessage, "tags: No such tag(s): 'nope'.; zone: No such zone(s): mars.");
    t.regex(err?.message ?? '', /HTTP 400: tags: No such tag/);
  });
});

test('maas client - 401 unauthorized, 403 forbidden with a hint, 404 null on get and not-found elsewhere', async (t) => {
  await withFake((s) => {
    if (s.method === 'GET' && s.url.includes('/machines/')) return { status: 404, text: 'No Machine matches the given query.' };
    if (s.method === 'PUT') return { status: 403, text: 'You do not have permission to perform this action.' };
    if (s.url.includes('dnsresources')) return { status: 404, text: 'No Domain matches the given query.' };
    return { status: 401, text: 'Authorization Error: Invalid API key.' };
  }, {}, async (c) => {
    t.is(await c.getMachine('gone99'), null);
    const swap = await t.throwsAsync(c.updateMachine('abc123', { swapSize: 0 }), { instanceOf: MaasError });
    t.is(swap?.code, 'forbidden');
    t.regex(swap?.message ?? '', /need a MAAS admin/);
    const dns = await t.throwsAsync(c.listDnsResources({ fqdn: 'x.nodomain' }), { instanceOf: MaasError });
    t.is(dns?.code, 'not-found');
    t.is(dns?.maasMessage, 'No Domain matches the given query.');
    t.is(dns?.call, 'GET /dnsresources/?fqdn=x.nodomain');
    const auth = await t.throwsAsync(c.release('abc123'), { instanceOf: MaasError });
    t.is(auth?.code, 'unauthorized');
    t.false(auth?.retryable);
    t.regex(auth?.message ?? '', /Invalid API key.*check MAAS_API_KEY/);
    assertNoSecret(t, auth);
  });
});

test('maas client - 503 is retried inside the client, then succeeds', async (t) => {
  await withFake((_s, n) => (n < 2 ? { status: 503, text: 'Unable to allocate static IP due to address exhaustion.', headers: { 'Retry-After': '0' } } : { status: 200, json: machine({ status: 9, status_name: 'Deploying' }) }), {}, async (c, f) => {
    const m = await c.deploy('abc123', { distroSeries: 'jammy' });
    t.is(m.status_name, 'Deploying');
    t.is(f.seen.length, 3);
    t.is(c.stats.byRoute['POST /machines/{id}/ op=deploy'], 3);
    t.is(c.stats.retries, 2);
  });
});

test('maas client - 5xx past the retries is unavailable and retryable; a POST is not re-sent after a 500', async (t) => {
  await withFake((s) => (s.method === 'GET' ? { status: 502, text: '<html>Bad gateway</html>' } : { status: 500, text: 'Internal error' }), {}, async (c, f) => {
    const err = await t.throwsAsync(c.getMachine('abc123'), { instanceOf: MaasError });
    t.is(err?.code, 'unavailable');
    t.true(err?.retryable);
    t.is(err?.attempts, 3);
    t.is(err?.maasMessage, '', 'an HTML page is not quoted');
    t.regex(err?.message ?? '', /HTTP 502 after 3 attempts: Bad Gateway/);
    const post = await t.throwsAsync(c.allocate({ cpuCount: 1 }), { instanceOf: MaasError });
    t.is(post?.code, 'unavailable');
    t.is(post?.attempts, 1, 'a 500 to a POST may have changed MAAS; the caller re-reads first');
    t.is(f.seen.filter((s) => s.method === 'POST').length, 1);
  });
});

test('maas client - timeout: a GET is retried then thrown as timeout; a POST that was sent is not re-sent', async (t) => {
  await withFake(() => 'hang', { timeoutMs: 80 }, async (c, f) => {
    const err = await t.throwsAsync(c.listMachines(), { instanceOf: MaasError });
    t.is(err?.code, 'timeout');
    t.true(err?.retryable);
    t.is(err?.status, null);
    t.is(err?.attempts, 3);
    t.regex(err?.message ?? '', /GET \/machines\/: MAAS at http:\/\/127\.0\.0\.1:\d+\/MAAS gave no complete answer within 80 ms after 3 attempts/);
    const post = await t.throwsAsync(c.allocate({ cpuCount: 1 }), { instanceOf: MaasError });
    t.is(post?.code, 'timeout');
    t.is(post?.attempts, 1);
    t.regex(post?.message ?? '', /may have reached MAAS/);
    // The POST was sent; on a loaded machine the fake may record it only after the client gave up.
    const posts = (): number => f.seen.filter((s) => s.method === 'POST').length;
    await waitFor(() => posts() > 0, 5_000, 'the POST at the fake');
    t.is(posts(), 1);
  });
});

test('maas client - network failures: refused is retried (even a POST) and thrown as network', async (t) => {
  const f = await fakeMaas(() => ({ status: 200 }));
  const url = f.url;
  await f.close();
  const c = createMaasClient({ endpoint: url, apiKey: API_KEY, retries: FAST });
  try {
    const err = await t.throwsAsync(c.allocate({ cpuCount: 1 }), { instanceOf: MaasError });
    t.is(err?.code, 'network');
    t.true(err?.retryable);
    t.is(err?.attempts, 3, 'a refused connection never reached MAAS, so even a POST is sent again');
    t.regex(err?.message ?? '', /cannot reach MAAS at .* \(ECONNREFUSED\) after 3 attempts/);
  } finally {
    c.close();
  }
});

test('maas client - a connection dropped mid-answer on a GET is retried', async (t) => {
  await withFake((_s, n) => (n === 0 ? 'destroy' : { status: 200, json: machine() }), {}, async (c, f) => {
    t.is((await c.getMachine('abc123'))?.system_id, 'abc123');
    t.is(f.seen.length, 2);
  });
});

test('maas client - answers that are not JSON, or of the wrong shape, are invalid-response', async (t) => {
  await withFake((s) => (s.method === 'GET' ? { status: 200, text: 'this is not json' } : { status: 200, json: machine({ power_state: 'sideways', status: 'x' }) }), {}, async (c) => {
    const err = await t.throwsAsync(c.getMachine('abc123'), { instanceOf: MaasError });
    t.is(err?.code, 'invalid-response');
    t.false(err?.retryable);
    t.regex(err?.message ?? '', /is not JSON/);
    const shape = await t.throwsAsync(c.powerOn('abc123'), { instanceOf: MaasError });
    t.is(shape?.code, 'invalid-response');
    t.regex(shape?.message ?? '', /unexpected shape at (status|power_state)/);
  });
});

test('maas client - bad input is refused before sending, naming the field', async (t) => {
  await withFake(() => ({ status: 200, json: machine() }), {}, async (c, f) => {
    t.is((await t.throwsAsync(c.createDnsResource({ fqdn: 'c1.maas', ipAddresses: ['10.0.0.1 10.0.0.2'] }), { instanceOf: MaasError }))?.code, 'bad-request');
    await t.throwsAsync(c.updateDnsResource(1.5, { ipAddresses: [] }), { message: /DNS resource id/ });
    await t.throwsAsync(c.allocate({ tags: ['a,b'] }), { message: /tags must be single MAAS tag names/ });
    await t.throwsAsync(c.allocate({ cpuCount: -1 }), { message: /cpuCount/ });
    await t.throwsAsync(c.updateMachine('abc123', { swapSize: 'lots' }), { message: /swapSize/ });
    await t.throwsAsync(c.getMachine(''), { message: /system id/ });
    const ud = await t.throwsAsync(c.deploy('abc123', { userDataBase64: `${USER_DATA}-not-base64` }), { message: /userDataBase64 is not standard base64/ });
    t.false(everyText(ud).includes('user-data-secret-value'));
    t.is(f.seen.length, 0);
  });
});

// ---------------------------------------------------------------------------- secrets

test('maas client - no part of the key and no user data in any error, even when MAAS echoes the request', async (t) => {
  // The worst server: it quotes the whole request back, headers and body, in every shape.
  const echo = (s: Seen): string => `${s.method} ${s.url}\nAuthorization: ${s.headers.authorization}\n${s.body}\n${decodeURIComponent(s.body)}\n${USER_DATA}\n${JSON.stringify(USER_DATA)}`;
  const replies: Array<(s: Seen) => Reply> = [
    (s) => ({ status: 400, text: echo(s) }),
    (s) => ({ status: 400, json: { user_data: [echo(s)], __all__: [`key ${API_KEY}`] } }),
    (s) => ({ status: 409, text: echo(s) }),
    (s) => ({ status: 401, text: echo(s) }),
    (s) => ({ status: 503, text: echo(s) }),
    (s) => ({ status: 200, text: `not json ${echo(s)}` }),
  ];
  for (const signature of ['PLAINTEXT', 'HMAC-SHA1'] as const) {
    for (const reply of replies) {
      await withFake(reply, { signature, retries: { attempts: 1, baseMs: 0, maxMs: 0 } }, async (c) => {
        const err = await t.throwsAsync(c.deploy('abc123', { userDataBase64: USER_DATA_B64, distroSeries: 'jammy' }), { instanceOf: MaasError });
        assertNoSecret(t, err);
        t.true((err?.maasMessage ?? '').length > 0 || err?.code === 'invalid-response' || err?.code === 'unavailable');
      });
    }
  }
  // Network and timeout failures, for completeness.
  await withFake(() => 'hang', { timeoutMs: 30, retries: { attempts: 1, baseMs: 0, maxMs: 0 } }, async (c) => {
    assertNoSecret(t, await t.throwsAsync(c.deploy('abc123', { userDataBase64: USER_DATA_B64 })));
  });
});
