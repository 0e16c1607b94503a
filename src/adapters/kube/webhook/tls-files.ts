import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import tls from 'node:tls';
import { MetalfleetError } from '../../../api/index.ts';

// The serving certificate and key, from files cert-manager (or anyone) replaces while the server
// runs. A Secret volume is updated by swapping a `..data` symlink in the mounted directory, so the
// directory is watched, not the file; a poll catches what a watch misses (a symlink elsewhere, a
// watch that failed to start). A pair that does not load (half written, key not yet matching)
// leaves the last good one served.

export type TlsFile = 'cert' | 'key';

export class WebhookTlsError extends MetalfleetError {
  constructor(readonly file: TlsFile, readonly path: string, readonly reason: string, options?: ErrorOptions) {
    super('webhookTls', `${file === 'cert' ? 'certificate' : 'key'} ${path}: ${reason}`, false, undefined, options);
    this.name = 'WebhookTlsError';
  }
}

export type TlsPair = {
  readonly cert: Buffer;
  readonly key: Buffer;
  /** What a log may say about the pair: nothing of the key. */
  readonly info: { readonly subject: string; readonly notAfter: string; readonly fingerprint256: string };
};

const FS_REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
};

async function read(file: TlsFile, path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new WebhookTlsError(file, path, `cannot read: ${FS_REASONS[code] ?? code}`, { cause: err });
  }
}

/** Checks that the two files make a serving pair; the error names the file at fault. */
export function tlsPairOf(cert: Buffer, key: Buffer, certFile: string, keyFile: string): TlsPair {
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (err) {
    throw new WebhookTlsError('cert', certFile, 'not a PEM certificate', { cause: err });
  }
  let keyObject: KeyObject;
  try {
    keyObject = createPrivateKey(key);
  } catch (err) {
    // OpenSSL's text here says what it could not decode, never the key.
    throw new WebhookTlsError('key', keyFile, 'not an unencrypted PEM private key', { cause: err });
  }
  if (!x509.checkPrivateKey(keyObject)) throw new WebhookTlsError('key', keyFile, `does not match the certificate in ${certFile}`);
  try {
    tls.createSecureContext({ cert, key });
  } catch (err) {
    throw new WebhookTlsError('cert', certFile, `not usable for TLS: ${(err as Error).message}`, { cause: err });
  }
  return { cert, key, info: { subject: x509.subject, notAfter: new Date(x509.validTo).toISOString(), fingerprint256: x509.fingerprint256 } };
}

export async function loadTlsPair(certFile: string, keyFile: string): Promise<TlsPair> {
  const [cert, key] = await Promise.all([read('cert', certFile), read('key', keyFile)]);
  return tlsPairOf(cert, key, certFile, keyFile);
}

export interface TlsWatchOptions {
  readonly certFile: string;
  readonly keyFile: string;
  readonly current: TlsPair;
  /** Re-read the files at least this often. */
  readonly pollMs: number;
  onReload(pair: TlsPair): void;
  /** Once per distinct failure; the previous pair stays in use. */
  onError(err: WebhookTlsError): void;
}

// A swap touches several directory entries in a burst; reading once it has settled spares a
// warning about a half-swapped pair.
const SETTLE_MS = 100;

export function watchTlsPair(options: TlsWatchOptions): { close(): void } {
  const { certFile, keyFile } = options;
  let current = options.current;
  let lastFailure: string | null = null;
  let closed = false;
  let checking = false;
  let again = false;
  let settle: NodeJS.Timeout | null = null;

  async function checkOnce(): Promise<void> {
    try {
      const [cert, key] = await Promise.all([read('cert', certFile), read('key', keyFile)]);
      if (closed) return;
      if (!cert.equals(current.cert) || !key.equals(current.key)) {
        current = tlsPairOf(cert, key, certFile, keyFile);
        options.onReload(current);
      }
      lastFailure = null;
    } catch (err) {
      if (closed) return;
      // A pair that loaded but could not be applied is reported the same way: the old one stays.
      const failure = err instanceof WebhookTlsError ? err : new WebhookTlsError('cert', certFile, `could not be applied (${(err as Error)?.name ?? 'Error'})`, { cause: err });
      if (failure.message !== lastFailure) options.onError(failure);
      lastFailure = failure.message;
    }
  }

  async function check(): Promise<void> {
    if (checking) {
      again = true;
      return;
    }
    checking = true;
    try {
      do {
        again = false;
        await checkOnce();
      } while (again && !closed);
    } finally {
      checking = false;
    }
  }

  const run = (): void => {
    void check();
  };
  const soon = (): void => {
    if (closed) return;
    if (settle) clearTimeout(settle);
    settle = setTimeout(run, SETTLE_MS);
    settle.unref();
  };

  const watchers: FSWatcher[] = [];
  for (const dir of new Set([dirname(certFile), dirname(keyFile)])) {
    try {
      const watcher = watch(dir, { persistent: false }, soon);
      // The poll still runs when a watch dies (directory removed, inotify limits).
      watcher.on('error', () => watcher.close());
      watchers.push(watcher);
    } catch {
      // No watch on this directory: the poll covers it.
    }
  }
  const poll = setInterval(run, options.pollMs);
  poll.unref();

  return {
    close() {
      closed = true;
      clearInterval(poll);
      if (settle) clearTimeout(settle);
      for (const watcher of watchers) watcher.close();
    },
  };
}
