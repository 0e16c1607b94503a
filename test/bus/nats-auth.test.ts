import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { nkeys } from '@nats-io/nats-core';
import { createAccount, createOperator, encodeAccount, encodeOperator, encodeUser, fmtCreds } from '@nats-io/jwt';
import { BusConnectError, connectNats, protectAuth } from '../../src/bus/nats-transport.ts';
import type { NatsConnectOptions } from '../../src/bus/nats-transport.ts';
import type { Transport } from '../../src/ports/index.ts';
import { startNatsServer } from '../support/nats-server.ts';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const PASSWORD = 'pw-Zq81-never-print';
const TOKEN = 'tok-Ux93-never-print';

async function tempDir(t: ExecutionContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-auth-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function server(t: ExecutionContext, config: string) {
  const s = await startNatsServer({ config });
  t.teardown(() => s.dispose());
  return s;
}

/** Connects, proves the connection carries a request/reply round trip, and closes. */
async function roundTrip(t: ExecutionContext, options: NatsConnectOptions): Promise<Transport> {
  const nc = await connectNats(options);
  t.teardown(() => nc.close());
  nc.subscribe('auth.echo', (m) => m.respond(m.data));
  t.is(new TextDecoder().decode(await nc.request('auth.echo', bytes('hello'), { timeoutMs: 2_000 })), 'hello');
  return nc;
}

/** Everything a log line could be made from must be free of the secrets. */
function assertNoSecret(t: ExecutionContext, secrets: readonly string[], ...things: unknown[]): void {
  for (const thing of things) {
    const shown = [String(thing), inspect(thing, { depth: 10, showHidden: false }), safeJson(thing)];
    if (thing instanceof Error) shown.push(thing.message, thing.stack ?? '');
    for (const secret of secrets) for (const text of shown) t.false(text.includes(secret), `secret leaked into: ${text.slice(0, 200)}`);
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

test('nats auth - user and password connect; a wrong password is a clear error without the password', async (t) => {
  const s = await server(t, `authorization { users = [ { user: alice, password: "${PASSWORD}" } ] }`);
  const auth = protectAuth({ user: 'alice', pass: PASSWORD });
  const nc = await roundTrip(t, { servers: s.url, name: 'userpass', auth });
  assertNoSecret(t, [PASSWORD], auth, nc, { servers: s.url, auth });

  const wrong = 'wrong-Kp20-password';
  const error = await t.throwsAsync(connectNats({ servers: s.url, name: 'userpass', auth: { user: 'alice', pass: wrong } }), { instanceOf: BusConnectError });
  t.regex(error?.message ?? '', /authorization failed for user "alice".*check the credentials/);
  t.false(error?.retryable, 'a wrong password does not get better by retrying');
  assertNoSecret(t, [wrong, PASSWORD], error);
});

test('nats auth - a password in the server URL is redacted from errors', async (t) => {
  const s = await server(t, `authorization { users = [ { user: alice, password: "${PASSWORD}" } ] }`);
  const wrong = 'url-Hh71-password';
  const url = `nats://alice:${wrong}@127.0.0.1:${s.port}`;
  const error = await t.throwsAsync(connectNats({ servers: url, name: 'inurl' }), { instanceOf: BusConnectError });
  t.regex(error?.message ?? '', /\[redacted\]@127\.0\.0\.1/);
  // Which credentials failed: the URL's user, not "no credentials" (they were given, in the URL).
  t.regex(error?.message ?? '', /authorization failed for user "alice" in the server URL/);
  assertNoSecret(t, [wrong], error);
  const tokenUrl = `nats://tok-Qz81-url@127.0.0.1:${s.port}`;
  const tokenError = await t.throwsAsync(connectNats({ servers: tokenUrl, name: 'inurl' }), { instanceOf: BusConnectError });
  t.regex(tokenError?.message ?? '', /authorization failed for a token in the server URL/);
  assertNoSecret(t, ['tok-Qz81-url'], tokenError);
});

// The CLI takes a bare HOST:PORT, so user:pass@HOST:PORT too; and a URL parser reads userinfo up to
// the last "@", so a password may hold one. Neither may reach the error, in whole or in part.
test('nats auth - a password in a scheme-less server URL, or one holding an @, is redacted whole', async (t) => {
  const s = await server(t, `authorization { users = [ { user: alice, password: "${PASSWORD}" } ] }`);
  const bare = 'bare-Rt62-password';
  const bareError = await t.throwsAsync(connectNats({ servers: `alice:${bare}@127.0.0.1:${s.port}`, name: 'inurl' }), { instanceOf: BusConnectError });
  t.regex(bareError?.message ?? '', /authorization failed for user "alice" in the server URL/);
  assertNoSecret(t, [bare], bareError);
  const atError = await t.throwsAsync(connectNats({ servers: `nats://alice:at@Vb47-tail@127.0.0.1:${s.port}`, name: 'inurl' }), { instanceOf: BusConnectError });
  t.regex(atError?.message ?? '', /\[redacted\]@127\.0\.0\.1/);
  assertNoSecret(t, ['Vb47-tail'], atError);
});

// A "/" in the password ends the URL's host for a URL parser: the client reads no URL, and the
// error quoted the whole of it. Through the library (no CLI check first) it must stay hidden too.
test('nats auth - a password holding a "/" is redacted whole from the error', async (t) => {
  const error = await t.throwsAsync(connectNats({ servers: 'nats://alice:pa/Zx93-slash@127.0.0.1:1', name: 'inurl' }), { instanceOf: BusConnectError });
  assertNoSecret(t, ['Zx93-slash', 'pa/Zx93'], error);
  t.regex(error?.message ?? '', /127\.0\.0\.1/);
});

// nats-server's docs and the nats CLI take credentials written into the server URL; the nats.js v3
// client does not send them, so a right password there was refused as unauthorised.
test('nats auth - right credentials in the server URL connect: user:pass (percent-encoded too), bare HOST:PORT, a token; explicit auth wins', async (t) => {
  const s = await server(t, `authorization { users = [ { user: alice, password: "${PASSWORD}" }, { user: bob, password: "p@ss/Wd:9" } ] }`);
  await roundTrip(t, { servers: `nats://alice:${PASSWORD}@127.0.0.1:${s.port}`, name: 'inurl' });
  await roundTrip(t, { servers: `alice:${PASSWORD}@127.0.0.1:${s.port}`, name: 'inurl-bare' });
  await roundTrip(t, { servers: `nats://bob:${encodeURIComponent('p@ss/Wd:9')}@127.0.0.1:${s.port}`, name: 'inurl-encoded' });
  // Given both, the explicit credentials are the ones sent: a wrong one fails though the URL's is right.
  const explicit = await t.throwsAsync(connectNats({ servers: `nats://alice:${PASSWORD}@127.0.0.1:${s.port}`, name: 'both', auth: protectAuth({ user: 'alice', pass: 'wrong-Kp20' }) }), { instanceOf: BusConnectError });
  t.regex(explicit?.message ?? '', /authorization failed for user "alice"/);
  assertNoSecret(t, [PASSWORD, 'wrong-Kp20'], explicit);
  const tokenServer = await server(t, `authorization { token: "${TOKEN}" }`);
  await roundTrip(t, { servers: `nats://${TOKEN}@127.0.0.1:${tokenServer.port}`, name: 'inurl-token' });
});

test('nats auth - a token connects; a wrong one fails without showing either', async (t) => {
  const s = await server(t, `authorization { token: "${TOKEN}" }`);
  const nc = await roundTrip(t, { servers: s.url, name: 'token', auth: protectAuth({ token: TOKEN }) });
  assertNoSecret(t, [TOKEN], nc);
  const wrong = 'tok-wrong-Lm55';
  const error = await t.throwsAsync(connectNats({ servers: s.url, name: 'token', auth: { token: wrong } }), { instanceOf: BusConnectError });
  t.regex(error?.message ?? '', /authorization failed for a token/);
  assertNoSecret(t, [wrong, TOKEN], error);
});

test('nats auth - an nkey seed connects; a bad seed is refused before dialling without quoting it', async (t) => {
  const user = nkeys.createUser();
  const seed = new TextDecoder().decode(user.getSeed());
  const s = await server(t, `authorization { users = [ { nkey: "${user.getPublicKey()}" } ] }`);
  const auth = protectAuth({ nkeySeed: seed });
  const nc = await roundTrip(t, { servers: s.url, name: 'nkey', auth });
  assertNoSecret(t, [seed], nc, auth);

  const other = new TextDecoder().decode(nkeys.createUser().getSeed());
  const denied = await t.throwsAsync(connectNats({ servers: s.url, name: 'nkey', auth: { nkeySeed: other } }), { instanceOf: BusConnectError });
  t.regex(denied?.message ?? '', /authorization failed for an nkey seed/);
  assertNoSecret(t, [other, seed], denied);

  const garbled = `${seed.slice(0, -4)}AAAA`;
  const bad = await t.throwsAsync(connectNats({ servers: s.url, name: 'nkey', auth: { nkeySeed: garbled } }), { instanceOf: BusConnectError });
  t.regex(bad?.message ?? '', /auth\.nkeySeed is not a valid nkey seed/);
  assertNoSecret(t, [garbled, seed], bad);
});

test('nats auth - a creds file (operator JWT mode) connects; a broken file names itself, not its contents', async (t) => {
  const dir = await tempDir(t);
  const operator = createOperator();
  const account = createAccount();
  const user = nkeys.createUser();
  const operatorJwt = await encodeOperator('metalfleet-op', operator);
  // The jwt library's account limits default to zero connections: lift them.
  const unlimited = { conn: -1, subs: -1, data: -1, payload: -1, imports: -1, exports: -1, leaf: -1, wildcards: true };
  const accountJwt = await encodeAccount('fleet', account, { limits: unlimited }, { signer: operator });
  // JetStream (on in every test server) needs a system account in operator mode.
  const system = createAccount();
  const systemJwt = await encodeAccount('SYS', system, {}, { signer: operator });
  const userJwt = await encodeUser('node-a', user, account);
  const credsFile = join(dir, 'node-a.creds');
  const creds = new TextDecoder().decode(fmtCreds(userJwt, user));
  await writeFile(credsFile, creds, { mode: 0o600 });
  const s = await server(t, [
    `operator: ${operatorJwt}`,
    `system_account: ${system.getPublicKey()}`,
    'resolver: MEMORY',
    `resolver_preload: { ${account.getPublicKey()}: ${accountJwt}, ${system.getPublicKey()}: ${systemJwt} }`,
  ].join('\n'));
  const userSeed = new TextDecoder().decode(user.getSeed());
  const nc = await roundTrip(t, { servers: s.url, name: 'creds', auth: { credsFile } });
  assertNoSecret(t, [userSeed], nc);

  // A user the account never signed: the server says no, and the error names the file only.
  const stranger = nkeys.createUser();
  const strangerFile = join(dir, 'stranger.creds');
  await writeFile(strangerFile, fmtCreds(await encodeUser('x', stranger, createAccount()), stranger));
  const denied = await t.throwsAsync(connectNats({ servers: s.url, name: 'creds', auth: { credsFile: strangerFile } }), { instanceOf: BusConnectError });
  t.regex(denied?.message ?? '', /authorization failed for creds file .*stranger\.creds/);
  assertNoSecret(t, [new TextDecoder().decode(stranger.getSeed())], denied);

  const broken = join(dir, 'broken.creds');
  await writeFile(broken, creds.replace(userSeed, 'SUnot-a-seed'));
  const bad = await t.throwsAsync(connectNats({ servers: s.url, name: 'creds', auth: { credsFile: broken } }), { instanceOf: BusConnectError });
  t.regex(bad?.message ?? '', /the nkey seed in .*broken\.creds is not a valid nkey seed/);
  t.false(bad?.retryable);

  const missing = await t.throwsAsync(connectNats({ servers: s.url, name: 'creds', auth: { credsFile: join(dir, 'absent.creds') } }), { instanceOf: BusConnectError });
  t.regex(missing?.message ?? '', /cannot read the creds file .*absent\.creds/);

  const notCreds = join(dir, 'not.creds');
  await writeFile(notCreds, `just some text with a seed ${userSeed}\n`);
  const wrongFormat = await t.throwsAsync(connectNats({ servers: s.url, name: 'creds', auth: { credsFile: notCreds } }), { instanceOf: BusConnectError });
  t.regex(wrongFormat?.message ?? '', /not\.creds is not a NATS creds file/);
  assertNoSecret(t, [userSeed], wrongFormat, bad, missing);
});

test('nats auth - TLS with our own CA connects; without the CA the certificate is refused', async (t) => {
  const dir = await tempDir(t);
  const ssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=metalfleet test CA');
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  await writeFile(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  ssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '1', '-extfile', 'san.ext');
  const s = await server(t, `tls { cert_file: "${join(dir, 'server.pem')}", key_file: "${join(dir, 'server.key')}" }`);

  await roundTrip(t, { servers: s.url, name: 'tls', tls: { caFile: join(dir, 'ca.pem') } });

  const untrusted = await t.throwsAsync(connectNats({ servers: s.url, name: 'tls', tls: {} }), { instanceOf: BusConnectError });
  t.regex(untrusted?.message ?? '', /TLS setup failed/);
  t.false(untrusted?.retryable);

  const noFile = await t.throwsAsync(connectNats({ servers: s.url, name: 'tls', tls: { caFile: join(dir, 'absent.pem') } }), { instanceOf: BusConnectError });
  t.regex(noFile?.message ?? '', /absent\.pem/);
});

test('nats auth - protectAuth hides the secret from JSON, inspect and spreads but keeps it readable', (t) => {
  const auth = protectAuth({ user: 'alice', pass: PASSWORD });
  t.is(auth.pass, PASSWORD);
  t.deepEqual(JSON.parse(JSON.stringify(auth)), { user: 'alice' });
  assertNoSecret(t, [PASSWORD], auth, { ...auth }, { nested: { auth } });
  // Protecting twice keeps the secret (a spread copy would have lost it).
  t.is(protectAuth(auth).pass, PASSWORD);
});

test('nats auth - a request the server permissions refuse is a forbidden error at once, not a retryable one', async (t) => {
  const s = await server(t, `authorization { users = [ { user: viewer, password: "${PASSWORD}", permissions: { publish: { deny: ["mf.cmd.>"] }, subscribe: { allow: ["_INBOX_viewer.>"] } } } ] }`);
  const nc = await connectNats({ servers: s.url, name: 'viewer', auth: protectAuth({ user: 'viewer', pass: PASSWORD }) });
  t.teardown(() => nc.close());
  const started = Date.now();
  const error = await t.throwsAsync(nc.request('mf.cmd.3', bytes('x'), { timeoutMs: 5_000 }));
  t.like(error, { name: 'BusError', kind: 'forbidden', retryable: false });
  t.regex(error?.message ?? '', /does not allow this connection's user to publish to mf\.cmd\.3/);
  t.true(Date.now() - started < 4_000, 'refused before the request timeout');
  assertNoSecret(t, [PASSWORD], error);
});
