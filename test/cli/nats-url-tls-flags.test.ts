// Mistakes in the NATS flags that used to pass quietly (issue 33.7): a client certificate without
// its key was dropped and the command connected without mutual TLS; an http:// URL was taken as
// a NATS server. Both are refused before anything connects, naming the flag.
import test from 'ava';
import { natsOptionsFrom } from '../../src/cli/nats-options.ts';
import { metalfleet } from './run.ts';

const NO_ENV: NodeJS.ProcessEnv = {};

test('nats flags - --nats-cert without --nats-key is refused, and the reverse, before connecting', async (t) => {
  await t.throwsAsync(natsOptionsFrom({ nats: 'nats://127.0.0.1:1', natsCert: '/tmp/cert.pem' }, NO_ENV, 'x'), {
    message: /--nats-cert \(or NATS_CERT\) given without --nats-key/,
  });
  await t.throwsAsync(natsOptionsFrom({ nats: 'nats://127.0.0.1:1', natsKey: '/tmp/key.pem' }, NO_ENV, 'x'), {
    message: /--nats-key \(or NATS_KEY\) given without --nats-cert/,
  });
  // A certificate from the environment and no key anywhere is the same mistake.
  await t.throwsAsync(natsOptionsFrom({ nats: 'nats://127.0.0.1:1' }, { NATS_CERT: '/tmp/cert.pem' }, 'x'), { message: /without --nats-key/ });
  // The real command exits 2 with that line and never dials (port 1 would fail otherwise).
  const run = await metalfleet('nodes', '--nats', 'nats://127.0.0.1:1', '--nats-cert', '/tmp/cert.pem');
  t.is(run.code, 2, run.stderr);
  t.regex(run.stderr, /^metalfleet: --nats-cert \(or NATS_CERT\) given without --nats-key/m);
});

test('nats flags - a certificate with its key, and the CA, reach the connection; flags win over the environment', async (t) => {
  const both = await natsOptionsFrom({ nats: 'tls://127.0.0.1:1', natsCert: 'c.pem', natsKey: 'k.pem', natsCa: 'ca.pem' }, NO_ENV, 'x');
  t.deepEqual(both.tls, { caFile: 'ca.pem', certFile: 'c.pem', keyFile: 'k.pem' });
  const fromEnv = await natsOptionsFrom({ nats: 'nats://127.0.0.1:1', natsCa: 'flag-ca.pem' }, { NATS_CA: 'env-ca.pem', NATS_CERT: 'c.pem', NATS_KEY: 'k.pem' }, 'x');
  t.deepEqual(fromEnv.tls, { caFile: 'flag-ca.pem', certFile: 'c.pem', keyFile: 'k.pem' });
  t.is((await natsOptionsFrom({ nats: 'nats://127.0.0.1:1' }, NO_ENV, 'x')).tls, undefined);
});

test('nats flags - an http:// NATS URL is refused naming the flag or NATS_URL; nats://, tls:// and HOST:PORT are taken', async (t) => {
  await t.throwsAsync(natsOptionsFrom({ nats: 'nats://127.0.0.1:1,http://127.0.0.1:8222' }, NO_ENV, 'x'), {
    message: '--nats: http:// is not a NATS URL; use nats://HOST:PORT or tls://HOST:PORT',
  });
  await t.throwsAsync(natsOptionsFrom({}, { NATS_URL: 'https://user:secret-Pw1@nats.example:443' }, 'x'), {
    message: 'NATS_URL: https:// is not a NATS URL; use nats://HOST:PORT or tls://HOST:PORT',
  });
  for (const url of ['nats://127.0.0.1:1', 'TLS://127.0.0.1:1', '127.0.0.1:4999']) {
    t.deepEqual((await natsOptionsFrom({ nats: url }, NO_ENV, 'x')).servers, [url]);
  }
  const run = await metalfleet('nodes', '--nats', 'http://127.0.0.1:1');
  t.is(run.code, 2, run.stderr);
  t.regex(run.stderr, /^metalfleet: --nats: http:\/\/ is not a NATS URL/m);
});

test('nats flags - a password in a bare user:pass@HOST:PORT never reaches the command\'s error', async (t) => {
  // Port 1 refuses the connection: the line names the server, which must not carry the password.
  const run = await metalfleet('hosts', '--nats', 'alice:cli-Wq38-secret@127.0.0.1:1', '--timeout', '1');
  t.is(run.code, 1, run.stderr);
  t.regex(run.stderr, /cannot reach NATS at 127\.0\.0\.1:1/);
  t.false(run.stderr.includes('cli-Wq38-secret'), run.stderr);
  const at = await metalfleet('hosts', '--nats', 'nats://alice:at@Jk52-tail@127.0.0.1:1', '--timeout', '1');
  t.is(at.code, 1, at.stderr);
  t.false(at.stderr.includes('Jk52-tail'), at.stderr);
});

// `--nats ,` split into no server at all, and the NATS client then dialled its own default,
// 127.0.0.1:4222: a command meant for one cluster asked whichever NATS ran on this machine.
test('nats flags - a --nats or NATS_URL that names no server is refused before anything dials its default', async (t) => {
  for (const nats of [',', ' , ', ' ']) {
    await t.throwsAsync(natsOptionsFrom({ nats }, NO_ENV, 'x'), { message: /^--nats names no NATS server: use nats:\/\/HOST:PORT/ });
  }
  await t.throwsAsync(natsOptionsFrom({}, { NATS_URL: ',' }, 'x'), { message: /^NATS_URL names no NATS server/ });
  const run = await metalfleet('hosts', '--nats', ',', '--timeout', '0.5');
  t.is(run.code, 2, run.stderr);
  t.is(run.stderr, 'metalfleet: --nats names no NATS server: use nats://HOST:PORT or tls://HOST:PORT (comma-separated for several)\n');
  t.is(run.stdout, '');
});
