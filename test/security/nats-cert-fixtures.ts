// Client certificates a mutual-TLS nats-server refuses, and a CA that did not sign the server's
// certificate: made with openssl in a test's folder, next to the secure server's own CA.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export interface BadCerts {
  /** A client certificate and key from a CA of its own (the server does not trust it). */
  readonly stray: { readonly certFile: string; readonly keyFile: string };
  /** A client certificate the server's own CA signed, valid only in January 2020. */
  readonly expired: { readonly certFile: string; readonly keyFile: string };
  /** A CA that did not sign the server's certificate. */
  readonly otherCa: string;
}

async function openssl(...args: string[]): Promise<void> {
  await exec('openssl', args);
}

async function keyAndRequest(dir: string, cn: string): Promise<{ key: string; csr: string }> {
  const key = join(dir, `${cn}-key.pem`);
  const csr = join(dir, `${cn}.csr`);
  await openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', key);
  await openssl('req', '-new', '-key', key, '-subj', `/CN=${cn}`, '-out', csr);
  return { key, csr };
}

/** Makes the certificates under `serverDir` (the secure server's folder, which holds ca.pem and ca-key.pem). */
export async function makeBadCerts(serverDir: string): Promise<BadCerts> {
  const dir = await mkdtemp(join(serverDir, 'bad-certs-'));
  const otherCaKey = join(dir, 'other-ca-key.pem');
  const otherCa = join(dir, 'other-ca.pem');
  await openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', otherCaKey);
  await openssl('req', '-x509', '-new', '-key', otherCaKey, '-sha256', '-days', '30', '-subj', '/CN=metalfleet local NATS CA', '-out', otherCa);
  const ext = join(dir, 'client.ext');
  await writeFile(ext, 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n');

  const stray = await keyAndRequest(dir, 'stray');
  const strayCert = join(dir, 'stray-cert.pem');
  await openssl('x509', '-req', '-in', stray.csr, '-CA', otherCa, '-CAkey', otherCaKey, '-CAcreateserial', '-days', '30', '-sha256', '-extfile', ext, '-out', strayCert);

  const old = await keyAndRequest(dir, 'expired');
  await mkdir(join(dir, 'issued'));
  await writeFile(join(dir, 'index.txt'), '');
  await writeFile(join(dir, 'serial'), '1000\n');
  const conf = join(dir, 'ca.cnf');
  await writeFile(conf, [
    '[ca]', 'default_ca = local', '[local]', `database = ${join(dir, 'index.txt')}`, `new_certs_dir = ${join(dir, 'issued')}`,
    `serial = ${join(dir, 'serial')}`, 'default_md = sha256', 'policy = any', 'x509_extensions = client', 'copy_extensions = none',
    '[any]', 'commonName = supplied', '[client]', 'basicConstraints = CA:FALSE', 'keyUsage = critical,digitalSignature,keyEncipherment',
    'extendedKeyUsage = clientAuth', '',
  ].join('\n'));
  const expiredCert = join(dir, 'expired-cert.pem');
  await openssl('ca', '-batch', '-notext', '-config', conf, '-cert', join(serverDir, 'ca.pem'), '-keyfile', join(serverDir, 'ca-key.pem'),
    '-startdate', '20200101000000Z', '-enddate', '20200131000000Z', '-in', old.csr, '-out', expiredCert);

  return { stray: { certFile: strayCert, keyFile: stray.key }, expired: { certFile: expiredCert, keyFile: old.key }, otherCa };
}
