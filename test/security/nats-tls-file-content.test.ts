// TLS files that are there but hold the wrong thing: a key given as the certificate, the two
// swapped, a key that is not the certificate's, an encrypted key, a CA file with no certificate.
// The CLI dialled with them and said "cannot connect (error:0480006C:PEM routines::no start
// line); is a NATS server running there?" (retryable, blaming the server), or that the server's
// certificate was "not trusted by the CA file" that held no certificate at all. Now each is
// refused before dialling, naming the flag, the file and what it holds instead, never its
// content; connectNats says the same of its tls files.
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { BusConnectError, connectNats } from '../../src/bus/nats-transport.ts';
import { tlsFilesProblem } from '../../src/bus/nats-connect-problems.ts';
import { CliError } from '../../src/cli/cli-error.ts';
import { natsOptionsFrom } from '../../src/cli/nats-options.ts';
import { checkNatsTlsFiles } from '../../src/cli/nats-tls-flags.ts';
import { metalfleet } from '../cli/run.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { startSecureNats } from '../support/secure-nats.ts';

const exec = promisify(execFile);
const openssl = (...args: string[]): Promise<unknown> => exec('openssl', args);

interface Pems {
  readonly dir: string;
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
  readonly otherKey: string;
  readonly encryptedKey: string;
  readonly garbage: string;
  readonly csr: string;
}

async function pems(t: ExecutionContext): Promise<Pems> {
  const dir = await mkdtemp(join(tmpdir(), 'mf-tls-content-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const p = (name: string): string => join(dir, name);
  await openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', p('ca-key.pem'));
  await openssl('req', '-x509', '-new', '-key', p('ca-key.pem'), '-days', '2', '-subj', '/CN=test CA', '-out', p('ca.pem'));
  await openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', p('key.pem'));
  await openssl('req', '-new', '-key', p('key.pem'), '-subj', '/CN=client', '-out', p('client.csr'));
  await openssl('x509', '-req', '-in', p('client.csr'), '-CA', p('ca.pem'), '-CAkey', p('ca-key.pem'), '-CAcreateserial', '-days', '2', '-out', p('cert.pem'));
  await openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', p('other-key.pem'));
  await openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-aes256', '-pass', 'pass:not-shown', '-out', p('encrypted-key.pem'));
  await writeFile(p('garbage.pem'), 'hunter2-Kx71 is not PEM\n', { mode: 0o600 });
  return {
    dir, ca: p('ca.pem'), cert: p('cert.pem'), key: p('key.pem'), otherKey: p('other-key.pem'), encryptedKey: p('encrypted-key.pem'),
    garbage: p('garbage.pem'), csr: p('client.csr'),
  };
}

/** The base64 body lines of a PEM file: none may be shown. */
async function bodyOf(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8')).split('\n').filter((l) => l.length > 20 && !l.startsWith('-----'));
}

const q = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

test('nats tls content - files holding the wrong thing are refused before dialling, naming the flag, the file and what it holds', async (t) => {
  const f = await pems(t);
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ natsCa: f.ca, natsCert: f.key, natsKey: f.key }, new RegExp(`^--nats-cert ${q(f.key)}: holds a private key, not a certificate \\(are --nats-cert and --nats-key swapped\\?\\)$`)],
    [{ natsCa: f.ca, natsCert: f.cert, natsKey: f.cert }, new RegExp(`^--nats-key ${q(f.cert)}: holds a certificate, not a private key \\(are --nats-cert and --nats-key swapped\\?\\)$`)],
    [{ natsCa: f.ca, natsCert: f.cert, natsKey: f.garbage }, new RegExp(`^--nats-key ${q(f.garbage)}: holds no PEM private key \\(-----BEGIN PRIVATE KEY-----\\)$`)],
    [{ natsCa: f.garbage }, new RegExp(`^--nats-ca ${q(f.garbage)}: holds no PEM certificate \\(-----BEGIN CERTIFICATE-----\\): give the CA certificate that signed the NATS server's$`)],
    [{ natsCa: f.key }, new RegExp(`^--nats-ca ${q(f.key)}: holds a private key, not a certificate: give the CA certificate that signed the NATS server's$`)],
    [{ natsCa: f.ca, natsCert: f.csr, natsKey: f.key }, new RegExp(`^--nats-cert ${q(f.csr)}: holds a certificate request, not a certificate: give the certificate the CA signed from it$`)],
    [{ natsCa: f.ca, natsCert: f.cert, natsKey: f.otherKey }, new RegExp(`^--nats-key ${q(f.otherKey)}: is not the private key of the certificate in --nats-cert ${q(f.cert)}$`)],
    [{ natsCa: f.ca, natsCert: f.cert, natsKey: f.encryptedKey }, new RegExp(`^--nats-key ${q(f.encryptedKey)}: is encrypted \\(it has a passphrase\\), which the NATS client cannot ask for: give it decrypted, e\\.g\\. openssl pkey -in KEY -out PLAIN \\(mode 600\\)$`)],
  ];
  for (const [flags, message] of cases) {
    const error = await t.throwsAsync(checkNatsTlsFiles(flags, {}), { instanceOf: CliError }, JSON.stringify(flags));
    t.regex(error?.message ?? '', message, JSON.stringify(flags));
    t.is(error?.exitCode, 2);
    for (const file of Object.values(flags)) for (const line of await bodyOf(file)) t.false(error?.message.includes(line.slice(0, 16)), file);
    t.false(error?.message.includes('hunter2'));
  }
  // From the environment, named by its variable.
  await t.throwsAsync(checkNatsTlsFiles({}, { NATS_CA: f.ca, NATS_CERT: f.cert, NATS_KEY: f.otherKey }), { message: /^NATS_KEY .*other-key\.pem: is not the private key of the certificate in NATS_CERT / });
  // The right files pass.
  await t.notThrowsAsync(checkNatsTlsFiles({ natsCa: f.ca, natsCert: f.cert, natsKey: f.key }, {}));
  await t.notThrowsAsync(natsOptionsFrom({ nats: 'nats://127.0.0.1:1', natsCa: f.ca, natsCert: f.cert, natsKey: f.key }, {}, 'x', () => t.fail('no warning for a 0600 key')));
  // A client key other users may read is used, with a warning (as ssh judges: only the user's own file).
  if (typeof process.getuid === 'function') {
    await chmod(f.key, 0o644);
    const warnings: string[] = [];
    await natsOptionsFrom({ nats: 'nats://127.0.0.1:1', natsCa: f.ca }, { NATS_CERT: f.cert, NATS_KEY: f.key }, 'x', (w) => warnings.push(w));
    t.deepEqual(warnings, [`NATS_KEY ${f.key}: permissions 0644 are too open: other users may read this NATS credential; run "chmod 600 ${f.key}"`]);
  }
});

test('nats tls content - every command that connects says so (exit 2), not "is a NATS server running there?"', async (t) => {
  const f = await pems(t);
  for (const command of [['hosts'], ['audit'], ['host', 'power-off', 'metal3/a']]) {
    const r = await metalfleet(...command, '--nats', 'nats://127.0.0.1:1', '--nats-ca', f.ca, '--nats-cert', f.key, '--nats-key', f.cert);
    t.is(r.code, 2, `${command[0]}: ${r.stderr}`);
    t.regex(r.stderr, /^metalfleet: --nats-cert .*key\.pem: holds a private key, not a certificate/m, command[0]);
    t.notRegex(r.stderr, /cannot connect|is a NATS server running|PEM routines/, command[0]);
  }
});

test('nats tls content - tlsFilesProblem reads nothing it is not given, and passes good files', async (t) => {
  const f = await pems(t);
  t.is(await tlsFilesProblem({}), null);
  t.is(await tlsFilesProblem({ caFile: f.ca, certFile: f.cert, keyFile: f.key }), null);
  t.deepEqual(await tlsFilesProblem({ caFile: f.ca, certFile: f.cert, keyFile: f.otherKey }), { file: 'key', path: f.otherKey, detail: `is not the private key of the certificate in ${f.cert}` });
});

if (natsServerInstalled()) {
  test('nats tls content - connectNats names the file that holds the wrong thing, not retryable, instead of a PEM routine', async (t) => {
    const nats = await startSecureNats();
    t.teardown(() => nats.dispose());
    const f = await pems(t);
    const own = nats.tlsFor('operator');
    const auth = { user: 'operator', pass: nats.passwords.operator };
    const swapped = await t.throwsAsync(connectNats({ servers: nats.url, name: 'x', auth, tls: { caFile: own.caFile, certFile: own.keyFile, keyFile: own.certFile }, timeoutMs: 5_000 }), { instanceOf: BusConnectError });
    t.regex(swapped?.message ?? '', new RegExp(`TLS setup failed: the client certificate file ${q(own.keyFile)} \\(--nats-cert, NATS_CERT\\) holds a private key, not a certificate`));
    t.false(swapped?.retryable);
    const mismatch = await t.throwsAsync(connectNats({ servers: nats.url, name: 'x', auth, tls: { caFile: own.caFile, certFile: own.certFile, keyFile: f.otherKey }, timeoutMs: 5_000 }), { instanceOf: BusConnectError });
    t.regex(mismatch?.message ?? '', new RegExp(`the client key file ${q(f.otherKey)} \\(--nats-key, NATS_KEY\\) is not the private key of the certificate in ${q(own.certFile)}`));
    t.false(mismatch?.retryable);
    const noCa = await t.throwsAsync(connectNats({ servers: nats.url, name: 'x', auth, tls: { ...own, caFile: f.garbage }, timeoutMs: 5_000 }), { instanceOf: BusConnectError });
    t.regex(noCa?.message ?? '', new RegExp(`the CA file ${q(f.garbage)} \\(--nats-ca, NATS_CA\\) holds no PEM certificate`));
    t.false(noCa?.message.includes('hunter2'));
  });
}
