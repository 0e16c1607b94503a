// Mutual TLS enforced (issue 33.7): the shipped configuration (deploy/nats/config.yaml, rendered by
// scripts/nats-dev-certs.sh) made the server ask for no client certificate, so an expired one, one
// from another CA, or none at all connected. Each is now refused in the handshake, before a password
// is sent; a user's own certificate from the script and its password get in.
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { sharedSecureNats } from '../support/secure-nats.ts';
import { cliAs } from '../support/secure-node.ts';

const exec = promisify(execFile);
const n = sharedSecureNats(test);

const openssl = async (...args: string[]): Promise<void> => {
  await exec('openssl', args);
};

/** An ECDSA key and a CSR for `cn` in `dir`. */
async function request(dir: string, cn: string): Promise<{ key: string; csr: string }> {
  const key = join(dir, `${cn}-key.pem`);
  const csr = join(dir, `${cn}.csr`);
  await openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', key);
  await openssl('req', '-new', '-key', key, '-subj', `/CN=${cn}`, '-out', csr);
  return { key, csr };
}

/** A client certificate the server's own CA signed, valid only in January 2020. */
async function expiredCertificate(dir: string): Promise<{ certFile: string; keyFile: string }> {
  const { key, csr } = await request(dir, 'viewer-expired');
  await mkdir(join(dir, 'issued'), { recursive: true });
  await writeFile(join(dir, 'index.txt'), '');
  await writeFile(join(dir, 'serial'), '1000\n');
  const conf = join(dir, 'ca.cnf');
  await writeFile(conf, [
    '[ca]', 'default_ca = local', '[local]', `database = ${join(dir, 'index.txt')}`, `new_certs_dir = ${join(dir, 'issued')}`,
    `serial = ${join(dir, 'serial')}`, 'default_md = sha256', 'policy = any', 'x509_extensions = client', 'copy_extensions = none',
    '[any]', 'commonName = supplied', '[client]', 'basicConstraints = CA:FALSE', 'keyUsage = critical,digitalSignature,keyEncipherment',
    'extendedKeyUsage = clientAuth', '',
  ].join('\n'));
  const certFile = join(dir, 'viewer-expired-cert.pem');
  await openssl('ca', '-batch', '-notext', '-config', conf, '-cert', n().caFile, '-keyfile', join(n().dir, 'ca-key.pem'),
    '-startdate', '20200101000000Z', '-enddate', '20200131000000Z', '-in', csr, '-out', certFile);
  return { certFile, keyFile: key };
}

/** A client certificate from a CA of its own, as someone who copied the setup would make one. */
async function strayCertificate(dir: string): Promise<{ certFile: string; keyFile: string }> {
  const caKey = join(dir, 'stray-ca-key.pem');
  const ca = join(dir, 'stray-ca.pem');
  await openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', caKey);
  await openssl('req', '-x509', '-new', '-key', caKey, '-sha256', '-days', '30', '-subj', '/CN=metalfleet local NATS CA', '-out', ca);
  const { key, csr } = await request(dir, 'viewer');
  const ext = join(dir, 'client.ext');
  await writeFile(ext, 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n');
  const certFile = join(dir, 'stray-viewer-cert.pem');
  await openssl('x509', '-req', '-in', csr, '-CA', ca, '-CAkey', caKey, '-CAcreateserial', '-days', '30', '-sha256', '-extfile', ext, '-out', certFile);
  return { certFile, keyFile: key };
}

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
  const stray = await strayCertificate(n().dir);
  const error = await t.throwsAsync(n().connect('viewer', { tls: { caFile: n().caFile, ...stray } }));
  t.notRegex(String(error), /Authorization/i);
  t.regex(n().log(), /TLS handshake error/);
});

test('mutual tls - an expired client certificate from the right CA is refused, even with a good password', async (t) => {
  const expired = await expiredCertificate(n().dir);
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
