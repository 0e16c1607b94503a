// OAuth 1.0 as the simulated MAAS checks it (capmaas.md §3.1), driven with this file's own
// signer — not the client under src/adapters/maas, and not the simulator's verifier.
import { createHmac, randomUUID } from 'node:crypto';
import test from 'ava';
import type { MaasSim } from '../../src/sim/maas/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';

type Pairs = Array<[string, string]>;

// RFC 3986 unreserved characters stay, every other UTF-8 byte becomes %XX.
function enc(s: string): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function baseString(method: string, url: string, params: Pairs): string {
  const u = new URL(url);
  const sorted = params.map(([k, v]) => [enc(k), enc(v)] as const).sort(([ak, av], [bk, bv]) => (ak === bk ? (av < bv ? -1 : 1) : ak < bk ? -1 : 1));
  return [method, enc(`${u.protocol}//${u.host}${u.pathname}`), enc(sorted.map(([k, v]) => `${k}=${v}`).join('&'))].join('&');
}

interface SignOptions {
  /** Form pairs to put in the signature (what the client thinks it sent). */
  signed?: Pairs;
  secret?: string;
  drop?: string;
  timestamp?: string;
  method?: string;
}

function hmacAuthorization(key: string, method: string, url: string, o: SignOptions = {}): string {
  const [ck = '', tk = '', ts = ''] = key.split(':');
  const oauth: Record<string, string> = {
    oauth_consumer_key: ck,
    oauth_token: tk,
    oauth_signature_method: o.method ?? 'HMAC-SHA1',
    oauth_timestamp: o.timestamp ?? String(Math.floor(Date.now() / 1000)),
    oauth_nonce: randomUUID(),
    oauth_version: '1.0',
  };
  const query = [...new URL(url).searchParams.entries()];
  const base = baseString(method, url, [...Object.entries(oauth), ...query, ...(o.signed ?? [])]);
  oauth.oauth_signature = createHmac('sha1', `&${enc(o.secret ?? ts)}`).update(base).digest('base64');
  if (o.drop) delete oauth[o.drop];
  return `OAuth ${Object.entries(oauth).map(([k, v]) => `${k}="${enc(v)}"`).join(', ')}`;
}

function plaintextAuthorization(key: string, o: { secret?: string; drop?: string; timestamp?: string; nonce?: string } = {}): string {
  const [ck = '', tk = '', ts = ''] = key.split(':');
  const fields: Record<string, string> = {
    oauth_nonce: o.nonce ?? randomUUID(),
    oauth_signature: `%26${enc(o.secret ?? ts)}`,
    oauth_consumer_key: ck,
    oauth_version: '1.0',
    oauth_signature_method: 'PLAINTEXT',
    oauth_token: tk,
    oauth_timestamp: o.timestamp ?? String(Math.floor(Date.now() / 1000)),
  };
  if (o.drop) delete fields[o.drop];
  return `OAuth realm="MAAS API", ${Object.entries(fields).map(([k, v]) => `${k}="${v}"`).join(', ')}`;
}

interface Answer {
  status: number;
  text: string;
}

async function send(url: string, method: string, authorization: string | undefined, form?: Pairs, multipart = false): Promise<Answer> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (authorization !== undefined) headers.Authorization = authorization;
  let body: string | undefined;
  if (form && multipart) {
    headers['Content-Type'] = 'multipart/form-data; boundary=b0undary';
    body = `${form.map(([k, v]) => `--b0undary\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('')}--b0undary--\r\n`;
  } else if (form) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = form.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
  }
  const res = await fetch(url, { method, headers, body });
  return { status: res.status, text: await res.text() };
}

const api = (sim: MaasSim, path: string) => `${sim.url}/api/2.0/${path}`;
const INVALID_KEY = 'Authorization Error: Invalid API key.';

test('maas sim - the test signer reproduces the RFC 5849 and OAuth 1.0 example signatures', (t) => {
  // RFC 5849 §3.4.1.1: repeated and empty parameters, encoded keys, query and form together.
  t.is(
    baseString('POST', 'http://example.com/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b', [
      ['b5', '=%3D'], ['a3', 'a'], ['c@', ''], ['a2', 'r b'],
      ['oauth_consumer_key', '9djdj82h48djs9d2'], ['oauth_token', 'kkk9d7dh3k39sjv7'], ['oauth_signature_method', 'HMAC-SHA1'],
      ['oauth_timestamp', '137131201'], ['oauth_nonce', '7d8f3e4a'], ['c2', ''], ['a3', '2 q'],
    ]),
    'POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk9d7dh3k39sjv7',
  );
  // OAuth Core 1.0 appendix A.5: the photos.example.net signature.
  const base = baseString('GET', 'http://photos.example.net/photos', [
    ['file', 'vacation.jpg'], ['size', 'original'], ['oauth_consumer_key', 'dpf43f3p2l4k3l03'], ['oauth_token', 'nnch734d00sl2jdk'],
    ['oauth_signature_method', 'HMAC-SHA1'], ['oauth_timestamp', '1191242096'], ['oauth_nonce', 'kllo9940pd9333jh'], ['oauth_version', '1.0'],
  ]);
  t.is(createHmac('sha1', 'kd94hf93k423kf44&pfkkdhi9sl3r4s00').update(base).digest('base64'), 'tR3+Ty81lMeYAr/Fid0kMTYa/WM=');
});

test('maas sim - PLAINTEXT with realm and any field order is accepted', async (t) => {
  const sim = await startMaasSim();
  t.teardown(() => sim.stop());
  const r = await send(api(sim, 'machines/'), 'GET', plaintextAuthorization(sim.adminKey));
  t.is(r.status, 200);
  t.true((JSON.parse(r.text) as unknown[]).length >= 10);
});

test('maas sim - HMAC-SHA1 is verified over the query string and a POST form with repeated keys', async (t) => {
  const sim = await startMaasSim();
  t.teardown(() => sim.stop());
  const listUrl = api(sim, 'machines/?zone=az2&pool=gpu&zone=az1');
  const list = await send(listUrl, 'GET', hmacAuthorization(sim.adminKey, 'GET', listUrl));
  t.is(list.status, 200, list.text);
  t.is((JSON.parse(list.text) as unknown[]).length, 4);

  // tags=gpu&tags=nvidia: both pairs are signed (maas-client-go #48 fixed exactly this).
  const form: Pairs = [['cpu_count', '1'], ['mem', '1024'], ['op', 'allocate'], ['tags', 'gpu'], ['tags', 'nvidia'], ['zone', 'az2']];
  const url = api(sim, 'machines/');
  const r = await send(url, 'POST', hmacAuthorization(sim.adminKey, 'POST', url, { signed: form }), form);
  t.is(r.status, 200, r.text);
  const machine = JSON.parse(r.text) as { hostname: string; tag_names: string[]; owner: string };
  t.is(machine.hostname, 'gpu-04');
  t.deepEqual([machine.tag_names.includes('gpu'), machine.tag_names.includes('nvidia')], [true, true]);
  t.is(machine.owner, 'admin');
});

test('maas sim - a signature over only the last of repeated tags is 401 (the old multi-tag bug)', async (t) => {
  const sim = await startMaasSim();
  t.teardown(() => sim.stop());
  const url = api(sim, 'machines/');
  const sent: Pairs = [['op', 'allocate'], ['tags', 'gpu'], ['tags', 'nvidia']];
  const signedAsMap: Pairs = [['op', 'allocate'], ['tags', 'nvidia']];
  const r = await send(url, 'POST', hmacAuthorization(sim.adminKey, 'POST', url, { signed: signedAsMap }), sent);
  t.is(r.status, 401);
  t.is(r.text, INVALID_KEY);
  t.true(sim.machines().every((m) => m.owner === null), 'nothing was allocated');
});

test('maas sim - a multipart POST body is not part of the HMAC signature, its query string is', async (t) => {
  const sim = await startMaasSim();
  t.teardown(() => sim.stop());
  const url = api(sim, 'machines/?op=allocate');
  const form: Pairs = [['zone', 'az2'], ['tags', 'gpu']];
  const r = await send(url, 'POST', hmacAuthorization(sim.adminKey, 'POST', url), form, true);
  t.is(r.status, 200, r.text);
  t.is((JSON.parse(r.text) as { zone: { name: string } }).zone.name, 'az2');
  const signedFields = await send(url, 'POST', hmacAuthorization(sim.adminKey, 'POST', url, { signed: form }), form, true);
  t.is(signedFields.status, 401);
  const unsignedQuery = api(sim, 'machines/');
  const noQuery = await send(url, 'POST', hmacAuthorization(sim.adminKey, 'POST', unsignedQuery), form, true);
  t.is(noQuery.status, 401, 'op=allocate in the query string is signed');
});

test('maas sim - a PUT body is not part of the HMAC signature', async (t) => {
  const sim = await startMaasSim();
  t.teardown(() => sim.stop());
  const id = sim.machines()[0]?.system_id ?? '';
  const url = api(sim, `machines/${id}/`);
  const form: Pairs = [['swap_size', '0']];
  const unsignedBody = await send(url, 'PUT', hmacAuthorization(sim.adminKey, 'PUT', url), form);
  t.is(unsignedBody.status, 200, unsignedBody.text);
  t.is((JSON.parse(unsignedBody.text) as { swap_size: number }).swap_size, 0);
  const signedBody = await send(url, 'PUT', hmacAuthorization(sim.adminKey, 'PUT', url, { signed: form }), form);
  t.is(signedBody.status, 401);
});

test('maas sim - a wrong secret, an unknown key, a missing header or another scheme is 401', async (t) => {
  const sim = await startMaasSim();
  t.teardown(() => sim.stop());
  const url = api(sim, 'machines/');
  const [ck, tk] = sim.adminKey.split(':');
  const cases: Array<[string, string | undefined]> = [
    ['HMAC, wrong secret', hmacAuthorization(sim.adminKey, 'GET', url, { secret: 'not-the-secret' })],
    ['PLAINTEXT, wrong secret', plaintextAuthorization(sim.adminKey, { secret: 'not-the-secret' })],
    ['unknown consumer key', plaintextAuthorization(`nobody:${tk}:x`)],
    ['token of another key', plaintextAuthorization(`${ck}:${sim.userKey.split(':')[1]}:${sim.userKey.split(':')[2]}`)],
    ['unknown signature method', hmacAuthorization(sim.adminKey, 'GET', url, { method: 'RSA-SHA1' })],
    ['no Authorization', undefined],
    ['Basic', `Basic ${Buffer.from('admin:admin').toString('base64')}`],
  ];
  for (const [name, authorization] of cases) {
    const r = await send(url, 'GET', authorization);
    t.is(r.status, 401, name);
    t.is(r.text, INVALID_KEY, name);
  }
});

test('maas sim - each of the six oauth_* fields is required', async (t) => {
  const sim = await startMaasSim();
  t.teardown(() => sim.stop());
  const url = api(sim, 'machines/');
  for (const field of ['oauth_consumer_key', 'oauth_token', 'oauth_signature', 'oauth_signature_method', 'oauth_timestamp', 'oauth_nonce']) {
    const r = await send(url, 'GET', plaintextAuthorization(sim.adminKey, { drop: field }));
    t.is(r.status, 401, field);
    t.is(r.text, INVALID_KEY, field);
  }
  const withoutVersion = plaintextAuthorization(sim.adminKey).replace(/, oauth_version="1.0"/, '');
  t.is((await send(url, 'GET', withoutVersion)).status, 200, 'oauth_version is optional');
});

test('maas sim - a timestamp that is not an integer is 400', async (t) => {
  const sim = await startMaasSim();
  t.teardown(() => sim.stop());
  const url = api(sim, 'machines/');
  t.is((await send(url, 'GET', plaintextAuthorization(sim.adminKey, { timestamp: 'yesterday' }))).status, 400);
  t.is((await send(url, 'GET', hmacAuthorization(sim.adminKey, 'GET', url, { timestamp: '1.5' }))).status, 400);
});

test('maas sim - a replayed nonce and a timestamp over 300 s off are 401, as MAAS\'s OAuth server answers them', async (t) => {
  const sim = await startMaasSim();
  t.teardown(() => sim.stop());
  const url = api(sim, 'machines/');
  t.is((await send(url, 'GET', plaintextAuthorization(sim.adminKey, { nonce: 'once-only' }))).status, 200);
  const replay = await send(url, 'GET', plaintextAuthorization(sim.adminKey, { nonce: 'once-only' }));
  t.deepEqual([replay.status, replay.text], [401, "Authorization Error: 'Nonce already used: once-only'"]);
  // The same nonce under another key is another nonce.
  t.is((await send(url, 'GET', plaintextAuthorization(sim.userKey, { nonce: 'once-only' }))).status, 200);
  const now = Math.floor(Date.now() / 1000);
  for (const skew of [-301 - 5, 301 + 5]) {
    const r = await send(url, 'GET', plaintextAuthorization(sim.adminKey, { timestamp: String(now + skew) }));
    t.is(r.status, 401, `skew ${skew}`);
    t.regex(r.text, new RegExp(`^Authorization Error: 'Expired timestamp: given ${now + skew} and now \\d+ has a greater difference than threshold 300'$`));
  }
  t.is((await send(url, 'GET', plaintextAuthorization(sim.adminKey, { timestamp: String(now - 200) }))).status, 200, 'within the window');
  // An unknown key is refused before its nonce or timestamp is looked at.
  t.is((await send(url, 'GET', plaintextAuthorization('nobody:none:x', { timestamp: '1' }))).text, INVALID_KEY);
});

test('maas sim - the user key is not an admin: machine PUT and DNS writes are 403', async (t) => {
  const sim = await startMaasSim();
  t.teardown(() => sim.stop());
  const id = sim.machines()[0]?.system_id ?? '';
  const user = () => plaintextAuthorization(sim.userKey);
  const admin = () => plaintextAuthorization(sim.adminKey);

  t.is((await send(api(sim, `machines/${id}/`), 'GET', user())).status, 200);
  const swap = await send(api(sim, `machines/${id}/`), 'PUT', user(), [['swap_size', '0']]);
  t.is(swap.status, 403);
  t.is(sim.machine(id)?.swap_size, null);
  t.is((await send(api(sim, `machines/${id}/`), 'DELETE', user())).status, 403);

  const create = await send(api(sim, 'dnsresources/'), 'POST', user(), [['fqdn', 'api.maas'], ['address_ttl', '10'], ['ip_addresses', '']]);
  t.is(create.status, 403);
  t.is(create.text, 'This method is reserved for admin users.');
  t.deepEqual(sim.dnsResources(), []);

  const made = await send(api(sim, 'dnsresources/'), 'POST', admin(), [['fqdn', 'api.maas'], ['address_ttl', '10'], ['ip_addresses', '']]);
  t.is(made.status, 200);
  const dnsId = (JSON.parse(made.text) as { id: number }).id;
  t.is((await send(api(sim, `dnsresources/${dnsId}/`), 'PUT', user(), [['ip_addresses', '10.0.0.1']])).status, 403);
  t.is((await send(api(sim, `dnsresources/${dnsId}/`), 'DELETE', user())).status, 403);
  t.deepEqual(sim.dnsResources()[0]?.ips, []);
  t.is((await send(api(sim, 'dnsresources/?fqdn=api.maas'), 'GET', user())).status, 200, 'reading DNS is for everyone');
});

test('maas sim - keys given in the options are used and secrets never appear in answers', async (t) => {
  const sim = await startMaasSim({ keys: { admin: 'adminck:admintk:admin-secret-xyz', user: 'userck:usertk:user-secret-xyz' } });
  t.teardown(() => sim.stop());
  t.is(sim.adminKey, 'adminck:admintk:admin-secret-xyz');
  const answers = [
    await send(api(sim, 'machines/'), 'GET', plaintextAuthorization(sim.adminKey)),
    await send(api(sim, 'machines/'), 'GET', plaintextAuthorization(sim.adminKey, { secret: 'admin-secret-xyz2' })),
    await send(api(sim, 'machines/'), 'GET', plaintextAuthorization(sim.userKey, { timestamp: 'x' })),
    await send(api(sim, 'machines/?op=nope'), 'GET', plaintextAuthorization(sim.userKey)),
  ];
  t.deepEqual(answers.map((a) => a.status), [200, 401, 400, 400]);
  for (const a of answers) t.false(/secret-xyz/.test(a.text));
});

test('maas sim - generated keys are ck:tk:ts of random hex, different for admin and user', async (t) => {
  const sim = await startMaasSim();
  t.teardown(() => sim.stop());
  t.regex(sim.adminKey, /^[0-9a-f]{18}:[0-9a-f]{18}:[0-9a-f]{32}$/);
  t.regex(sim.userKey, /^[0-9a-f]{18}:[0-9a-f]{18}:[0-9a-f]{32}$/);
  t.not(sim.adminKey, sim.userKey);
});
