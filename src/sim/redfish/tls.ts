import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SelfSignedCert {
  readonly key: string;
  /** The certificate, PEM: its own CA, so a client verifies the simulator with it as its CA file. */
  readonly cert: string;
}

// Node cannot issue X.509 certificates itself, so the openssl command makes one per start: a
// P-256 key (fast to generate) and a cert for 127.0.0.1 and localhost, valid for a week.
// The key stays in memory; the temporary folder is removed before returning.
export async function selfSignedCert(): Promise<SelfSignedCert> {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-redfish-tls-'));
  try {
    const keyFile = join(dir, 'key.pem');
    const certFile = join(dir, 'cert.pem');
    await new Promise<void>((resolve, reject) => {
      execFile('openssl', [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '7',
        '-subj', '/CN=metalfleet simulated BMC', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout', keyFile, '-out', certFile,
      ], { timeout: 30_000 }, (err, _stdout, stderr) => {
        if (err) reject(new Error(`startRedfishSim: openssl could not make a self-signed certificate for tls (${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'openssl is not on PATH' : stderr.trim() || err.message})`, { cause: err }));
        else resolve();
      });
    });
    return { key: await readFile(keyFile, 'utf8'), cert: await readFile(certFile, 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
