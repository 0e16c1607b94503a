import test from 'ava';
import {
  baseStringUri,
  createMaasClient,
  encodeForm,
  formPairs,
  hmacSha1Signature,
  oauthAuthorization,
  parseApiKey,
  percentEncode,
  signatureBaseString,
  splitImage,
} from '../../src/adapters/maas/client/index.ts';

// OAuth 1.0 signing, form encoding, key parsing and image splitting, against vectors that do not
// come from this code: RFC 5849's own base string, Twitter's published HMAC-SHA1 example, and a
// MAAS allocate whose base string is written out here by hand and whose signature was computed
// with Python's hmac module.

const KEY = { consumerKey: 'Xq3FdMn8RhQ2vK7pLa', tokenKey: 'Tz9WbC4eJu6YsN1gHd', tokenSecret: 'Vr5KmP2xQw8Ln4Zs7Bt1Yc6Hj3Dg9Fa0' };
const API_KEY = `${KEY.consumerKey}:${KEY.tokenKey}:${KEY.tokenSecret}`;
const NONCE = { timestamp: '1767225600', nonce: 'f3a9c2e17b4d4e8a9d6b0c5e2f1a7b3c' };
const OAUTH_HMAC: Array<[string, string]> = [
  ['oauth_consumer_key', KEY.consumerKey],
  ['oauth_token', KEY.tokenKey],
  ['oauth_signature_method', 'HMAC-SHA1'],
  ['oauth_timestamp', NONCE.timestamp],
  ['oauth_nonce', NONCE.nonce],
  ['oauth_version', '1.0'],
];
const MACHINES = 'http://127.0.0.1:5240/MAAS/api/2.0/machines/';

/** The params of an Authorization header, values decoded. */
function headerParams(h: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of h.replace(/^OAuth /, '').matchAll(/([a-z_]+)="([^"]*)"/g)) out[m[1] as string] = decodeURIComponent(m[2] as string);
  return out;
}

test('maas client - RFC 5849 §3.4.1.1: the base string of the RFC example, repeated a3 sorted by value', (t) => {
  const base = signatureBaseString(
    { method: 'POST', url: 'http://example.com/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b', form: [['c2', ''], ['a3', '2 q']] },
    [['oauth_consumer_key', '9djdj82h48djs9d2'], ['oauth_token', 'kkk9d7dh3k39sjv7'], ['oauth_signature_method', 'HMAC-SHA1'], ['oauth_timestamp', '137131201'], ['oauth_nonce', '7d8f3e4a']],
  );
  t.is(base, 'POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk9d7dh3k39sjv7');
});

test('maas client - HMAC-SHA1 reproduces the published Twitter example signature', (t) => {
  const base = signatureBaseString(
    { method: 'post', url: 'https://api.twitter.com/1.1/statuses/update.json?include_entities=true', form: [['status', 'Hello Ladies + Gentlemen, a signed OAuth request!']] },
    [['oauth_consumer_key', 'xvz1evFS4wEEPTGEFPHBog'], ['oauth_nonce', 'kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg'], ['oauth_signature_method', 'HMAC-SHA1'], ['oauth_timestamp', '1318622958'], ['oauth_token', '370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb'], ['oauth_version', '1.0']],
  );
  t.true(base.startsWith('POST&https%3A%2F%2Fapi.twitter.com%2F1.1%2Fstatuses%2Fupdate.json&include_entities%3Dtrue%26oauth_consumer_key'));
  t.true(base.endsWith('%26status%3DHello%2520Ladies%2520%252B%2520Gentlemen%252C%2520a%2520signed%2520OAuth%2520request%2521'));
  t.is(hmacSha1Signature(base, 'kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw', 'LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE'), 'hCtSmYh+iHYCEqBWrE7C7hYmtUk=');
});

test('maas client - HMAC-SHA1 of an allocate with two tags signs each tag as its own sorted pair', (t) => {
  const form = formPairs({ op: 'allocate', cpu_count: 4, mem: 8192, zone: 'az 1', tags: ['ssd', 'gpu'] });
  // On the wire the tags keep the caller's order; in the base string they are sorted by value.
  t.is(encodeForm(form), 'cpu_count=4&mem=8192&op=allocate&tags=ssd&tags=gpu&zone=az%201');
  const base = signatureBaseString({ method: 'POST', url: MACHINES, form }, OAUTH_HMAC);
  t.is(base, 'POST&http%3A%2F%2F127.0.0.1%3A5240%2FMAAS%2Fapi%2F2.0%2Fmachines%2F&cpu_count%3D4%26mem%3D8192%26oauth_consumer_key%3DXq3FdMn8RhQ2vK7pLa%26oauth_nonce%3Df3a9c2e17b4d4e8a9d6b0c5e2f1a7b3c%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1767225600%26oauth_token%3DTz9WbC4eJu6YsN1gHd%26oauth_version%3D1.0%26op%3Dallocate%26tags%3Dgpu%26tags%3Dssd%26zone%3Daz%25201');
  t.is(hmacSha1Signature(base, '', KEY.tokenSecret), 'jvYgTdFksN//RryL1+Bkp5LvQ8E=');
  // The pre-#333 bug: only the last tag signed gives another signature (MAAS answered 401).
  t.not(hmacSha1Signature(base, '', KEY.tokenSecret), 'TFSerqVC7dX+/eaPzoM4EehPdLI=');

  const header = oauthAuthorization(parseApiKey(API_KEY), 'HMAC-SHA1', { method: 'POST', url: MACHINES, form }, NONCE);
  t.false(header.includes('realm='));
  t.deepEqual(headerParams(header), {
    oauth_consumer_key: KEY.consumerKey,
    oauth_token: KEY.tokenKey,
    oauth_signature_method: 'HMAC-SHA1',
    oauth_signature: 'jvYgTdFksN//RryL1+Bkp5LvQ8E=',
    oauth_timestamp: NONCE.timestamp,
    oauth_nonce: NONCE.nonce,
    oauth_version: '1.0',
  });
  t.true(header.includes('oauth_signature="jvYgTdFksN%2F%2FRryL1%2BBkp5LvQ8E%3D"'), 'the signature is percent-encoded in the header');
});

test('maas client - HMAC-SHA1 signs the query of a GET and leaves the body of a PUT out', (t) => {
  const get = signatureBaseString({ method: 'GET', url: 'http://127.0.0.1:5240/MAAS/api/2.0/dnsresources/?fqdn=c1-3f9a2b.maas' }, OAUTH_HMAC);
  t.true(get.startsWith('GET&http%3A%2F%2F127.0.0.1%3A5240%2FMAAS%2Fapi%2F2.0%2Fdnsresources%2F&fqdn%3Dc1-3f9a2b.maas%26oauth_consumer_key'));
  const url = 'http://127.0.0.1:5240/MAAS/api/2.0/machines/abc123/';
  const withBody = signatureBaseString({ method: 'PUT', url, form: [['swap_size', '0']] }, OAUTH_HMAC);
  t.is(withBody, signatureBaseString({ method: 'PUT', url }, OAUTH_HMAC));
  t.false(withBody.includes('swap_size'));
  t.true(signatureBaseString({ method: 'POST', url, form: [['op', 'deploy']] }, OAUTH_HMAC).includes('op%3Ddeploy'));
});

test('maas client - the base string URI: lower-case scheme and host, no default port, no query', (t) => {
  t.is(baseStringUri('HTTP://MAAS.Example.COM:80/MAAS/api/2.0/machines/?op=x'), 'http://maas.example.com/MAAS/api/2.0/machines/');
  t.is(baseStringUri('https://maas.example.com:443/MAAS/'), 'https://maas.example.com/MAAS/');
  t.is(baseStringUri('https://maas.example.com:5443/MAAS/'), 'https://maas.example.com:5443/MAAS/');
});

test('maas client - PLAINTEXT header: realm, the six oauth fields and version, signature %26<secret>', (t) => {
  const header = oauthAuthorization(parseApiKey(API_KEY), 'PLAINTEXT', { method: 'GET', url: MACHINES }, NONCE);
  t.is(header, `OAuth realm="MAAS API", oauth_consumer_key="${KEY.consumerKey}", oauth_token="${KEY.tokenKey}", oauth_signature_method="PLAINTEXT", oauth_signature="%26${KEY.tokenSecret}", oauth_timestamp="1767225600", oauth_nonce="f3a9c2e17b4d4e8a9d6b0c5e2f1a7b3c", oauth_version="1.0"`);
  // A fresh nonce and the current time when none is given.
  const a = headerParams(oauthAuthorization(parseApiKey(API_KEY), 'PLAINTEXT', { method: 'GET', url: MACHINES }));
  const b = headerParams(oauthAuthorization(parseApiKey(API_KEY), 'PLAINTEXT', { method: 'GET', url: MACHINES }));
  t.not(a.oauth_nonce, b.oauth_nonce);
  t.true(Math.abs(Number(a.oauth_timestamp) - Date.now() / 1000) < 5);
});

test('maas client - percent-encoding is RFC 3986: space %20, reserved marks encoded, unreserved kept', (t) => {
  t.is(percentEncode("a b+c!*'()~-._/=&:"), 'a%20b%2Bc%21%2A%27%28%29~-._%2F%3D%26%3A');
  t.is(percentEncode('ü'), '%C3%BC');
});

test('maas client - form pairs: keys sorted, undefined left out, booleans true/false, arrays repeated, empty kept', (t) => {
  const pairs = formPairs({ zone: 'z1', tags: ['b', 'a'], erase: false, force: true, op: 'release', skip: undefined, ip_addresses: '' });
  t.deepEqual(pairs, [['erase', 'false'], ['force', 'true'], ['ip_addresses', ''], ['op', 'release'], ['tags', 'b'], ['tags', 'a'], ['zone', 'z1']]);
  t.is(encodeForm(pairs), 'erase=false&force=true&ip_addresses=&op=release&tags=b&tags=a&zone=z1');
});

test('maas client - an API key is three non-empty parts, and a bad one is never echoed', (t) => {
  t.deepEqual(parseApiKey(`  ${API_KEY}\n`), KEY);
  const bad = ['', 'onlyonepart-SECRETPART', 'two:parts-SECRETPART', 'a:b:c:SECRETPART', 'a::SECRETPART', ':b:SECRETPART', 'a:b:SECRET PART'];
  for (const k of bad) {
    const err = t.throws(() => parseApiKey(k));
    t.regex(err?.message ?? '', /^maas client: apiKey/);
    t.false((err?.message ?? '').includes('SECRET'), `the message for ${JSON.stringify(k)} quotes no part of it`);
    const err2 = t.throws(() => createMaasClient({ endpoint: 'http://127.0.0.1:5240/MAAS', apiKey: k }));
    t.false((err2?.message ?? '').includes('SECRET'));
  }
});

test('maas client - options: endpoint checked, /api/2.0 accepted, key never in the message', (t) => {
  const c = createMaasClient({ endpoint: 'http://127.0.0.1:5240/MAAS/api/2.0/', apiKey: API_KEY });
  t.is(c.endpoint, 'http://127.0.0.1:5240/MAAS');
  c.close();
  t.throws(() => createMaasClient({ endpoint: 'not a url', apiKey: API_KEY }), { message: /endpoint is not a URL/ });
  t.throws(() => createMaasClient({ endpoint: 'ftp://x/MAAS', apiKey: API_KEY }), { message: /http:\/\/ or https:\/\// });
  t.throws(() => createMaasClient({ endpoint: 'http://127.0.0.1:5240/MAAS', apiKey: API_KEY, timeoutMs: -1 }), { message: /timeoutMs/ });
  const err = t.throws(() => createMaasClient({ endpoint: '', apiKey: API_KEY }));
  t.false(err?.message.includes(KEY.tokenSecret));
  const logged = createMaasClient({ endpoint: 'http://127.0.0.1:5240/MAAS', apiKey: API_KEY });
  t.false(JSON.stringify(logged).includes(KEY.tokenSecret), 'a logged client shows no key');
  logged.close();
});

test('maas client - splitImage follows CAPMAAS: os/series at the first slash, else custom', (t) => {
  t.deepEqual(splitImage('rhel/rocky-92'), { osystem: 'rhel', distroSeries: 'rocky-92' });
  t.deepEqual(splitImage('ubuntu/jammy'), { osystem: 'ubuntu', distroSeries: 'jammy' });
  t.deepEqual(splitImage('custom/u-2204-0-k-1296-0'), { osystem: 'custom', distroSeries: 'u-2204-0-k-1296-0' });
  t.deepEqual(splitImage('u-2204-0-k-1296-0'), { osystem: 'custom', distroSeries: 'u-2204-0-k-1296-0' });
  t.deepEqual(splitImage('custom/a/b'), { osystem: 'custom', distroSeries: 'a/b' });
  t.throws(() => splitImage(''), { message: /empty/ });
  t.throws(() => splitImage('/jammy'), { message: /empty osystem/ });
  t.throws(() => splitImage('ubuntu/'), { message: /empty series/ });
});
