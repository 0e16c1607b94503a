// Mutual TLS enforced (issue 33.7): the shipped configuration (deploy/nats/config.yaml, rendered by
// scripts/nats-dev-certs.sh) made the server ask for no client certificate, so an expired one, one
// from another CA, or none at all connected. Each is now refused in the handshake, before a password
// is sent; a user's own certificate from the script and its password get in.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import test from 'ava';
import { sharedSecureNats } from '../support/secure-nats.ts';
import { cliAs } from '../support/secure-node.ts';
import { makeBadCerts, type BadCerts } from './nats-cert-fixtures.ts';

const exec = promisify(execFile);
const n = sharedSecureNats(test);

// An expired client certificate from the server's own CA, and one from a CA of its own (as
// someone who copied the setup would make one): made once, for the tests that need them.
let made: Promise<BadCerts> | undefined;
const badCerts = (): Promise<BadCerts> => (made ??= makeBadCerts(n().dir));

test('mutual tls - a user with its own certificate and password connects', async (t) => {
  const nc = await n().connect('viewer');
  t.teardown(() => nc.close());
  await t.notThrowsAsync(nc.flush());
});

test('mutual tls - a client without a certificate is refused, even with a good password', async (t) => {
  const error = await t.throwsAsync(n().connect('viewer', { tls: { caFile: n().caFile } }));
  t.notRegex(String(error), /Authorization/i, 'refused in the TLS handshake, before the password is looked at');
});

test('mutual tls - a client certificate signed by another CA is refused, even with a good password', async (t) => {
  const { stray } = await badCerts();
  const error = await t.throwsAsync(n().connect('viewer', { tls: { caFile: n().caFile, ...stray } }));
  t.notRegex(String(error), /Authorization/i);
  t.regex(n().log(), /TLS handshake error/);
});

test('mutual tls - an expired client certificate from the right CA is refused, even with a good password', async (t) => {
  const { expired } = await badCerts();
  const { stdout } = await exec('openssl', ['x509', '-in', expired.certFile, '-noout', '-enddate']);
  t.regex(stdout, /2020/, 'the certificate did expire');
  await exec('openssl', ['verify', '-CAfile', n().caFile, '-no_check_time', expired.certFile]);
  const error = await t.throwsAsync(n().connect('viewer', { tls: { caFile: n().caFile, ...expired } }));
  t.notRegex(String(error), /Authorization/i);
  await n().waitForLog(/certificate has expired|expired certificate/i);
});

test('mutual tls - the CLI with a certificate and no key says so and does not connect', async (t) => {
  // The viewer's env file gives NATS_CERT and NATS_KEY; without the key the command stops at once.
  const run = await cliAs(n(), 'viewer', ['nodes', '--timeout', '2'], { without: ['NATS_KEY'] });
  t.is(run.code, 2, run.stderr);
  t.regex(run.stderr, /^metalfleet: --nats-cert \(or NATS_CERT\) given without --nats-key/m);
  t.false(n().log().includes('viewer-cli'), 'nothing reached the server');
});
