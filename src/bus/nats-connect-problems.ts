import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { GreetingOutcome } from './nats-greeting.ts';
import type { ServerInfo } from './server-info.ts';

// What a failed first connection to NATS means, in words a user can act on: what was found at a
// server's address instead of NATS, and which side of a TLS handshake refused the other. Only file
// names, addresses and certificate dates are quoted, never a credential.

export interface ConnectProblem {
  readonly detail: string;
  /** Whether trying again later could work (a stalled server may come back; an HTTP server stays one). */
  readonly retryable: boolean;
}

/** Why no server greeted as NATS, when at least one accepted the connection; null when none did (the client reports that). */
export function greetingProblem(outcomes: readonly GreetingOutcome[]): ConnectProblem | null {
  const found = outcomes.filter((o) => o.kind !== 'unreachable');
  if (found.length === 0) return null;
  const details = found.map((o: GreetingOutcome): ConnectProblem => {
    switch (o.kind) {
      case 'silent':
        return {
          detail: `cannot connect: the server at ${o.address} accepted the connection but never sent the NATS greeting (INFO) within ${o.waitedMs / 1000} s: `
            + 'a proxy or load balancer may be holding the connection, the server is stalled, or it wants TLS first (tls handshake_first, which this client does not do)',
          retryable: true,
        };
      case 'closed':
        return { detail: `cannot connect: the server at ${o.address} accepted the connection and closed it without the NATS greeting (INFO)`, retryable: true };
      case 'http':
        return {
          detail: `the server at ${o.address} is an HTTP server, not a NATS server (nats-server's monitoring port, 8222 by default, is one): give the client port (4222 by default)`,
          retryable: false,
        };
      case 'other':
        return { detail: `the server at ${o.address} is not a NATS server: it greeted with "${o.said}"; give a NATS server's client port (4222 by default)`, retryable: false };
      default:
        return { detail: `cannot connect to ${o.address}`, retryable: true };
    }
  });
  return { detail: details.map((d) => d.detail).join('; '), retryable: details.some((d) => d.retryable) };
}

export interface TlsFiles {
  readonly caFile?: string;
  readonly certFile?: string;
  readonly keyFile?: string;
}

// Node's codes for a server certificate that the given CA (or the system's) does not vouch for.
const UNTRUSTED_SERVER = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_SIGNATURE_FAILURE', 'CERT_UNTRUSTED', 'CERT_REJECTED',
]);

/**
 * What a TLS failure of the first connection says about the certificates, or null when it is not
 * one. `info` is the server's greeting, when it gave one: `tls_verify` says it checks client
 * certificates, so a connection it drops right after the handshake was its refusal of ours.
 */
export async function tlsProblem(error: unknown, tls: TlsFiles | undefined, info: ServerInfo | undefined, now: Date): Promise<ConnectProblem | null> {
  const code = codeOf(error);
  const text = error instanceof Error ? error.message : String(error);
  // A file that holds the wrong thing fails inside the TLS stack, as a PEM or decoder routine
  // (or, for a CA file with no certificate, as a server nobody vouches for): name the file.
  if (tls && (UNTRUSTED_SERVER.has(code) || code.startsWith('ERR_OSSL_') || code === 'ERR_MISSING_PASSPHRASE' || /PEM routines|DECODER routines|key values mismatch|bad decrypt/i.test(text))) {
    const wrong = await tlsFilesProblem(tls);
    if (wrong) return { detail: `TLS setup failed: ${TLS_FILE_NAMES[wrong.file]} ${wrong.path} (${TLS_FILE_FLAGS[wrong.file]}) ${wrong.detail}`, retryable: false };
  }
  if (UNTRUSTED_SERVER.has(code)) {
    return {
      detail: tls?.caFile
        ? `TLS setup failed: the server's certificate is not trusted by the CA file ${tls.caFile} (--nats-ca, NATS_CA): give the CA that signed the server's certificate (${text})`
        : `TLS setup failed: the server's certificate is not trusted by this system's CAs: give the CA that signed it with --nats-ca (NATS_CA; tls.caFile to connectNats) (${text})`,
      retryable: false,
    };
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    return { detail: `TLS setup failed: the server's certificate ${code === 'CERT_HAS_EXPIRED' ? 'has expired' : 'is not valid yet'}: the server needs a current one (${text})`, retryable: false };
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return { detail: `TLS setup failed: the server's certificate is not for the host in the URL (${text}): connect by a name the certificate holds`, retryable: false };
  }
  if (!tls?.certFile) return null;
  // Under TLS 1.3 a server checks the client's certificate after the client has finished its side
  // of the handshake: its refusal is an alert on the first read, or a reset on the first write.
  const alert = /alert ([a-z ]+?)(?::|$)/i.exec(text)?.[1]?.trim().toLowerCase();
  const dropped = code === 'ECONNRESET' || code === 'EPIPE' || /connection refused|connection closed/i.test(text);
  if (!alert && !(dropped && info?.tls_verify === true)) return null;
  const cert = `TLS setup failed: the NATS server refused the client certificate ${tls.certFile} (--nats-cert, NATS_CERT)${alert ? ` (TLS alert: ${alert})` : ''}`;
  const dates = await validity(tls.certFile);
  if (dates && dates.notAfter < now) {
    return { detail: `${cert}: it expired on ${dates.notAfter.toISOString()}; use a current certificate from the CA the server trusts`, retryable: false };
  }
  if (dates && dates.notBefore > now) {
    return { detail: `${cert}: it is not valid until ${dates.notBefore.toISOString()} (is this machine's clock right?)`, retryable: false };
  }
  return {
    detail: `${cert}: is it signed by a CA the server trusts for clients (its tls ca_file), and made for client authentication (extendedKeyUsage clientAuth)?`,
    retryable: false,
  };
}

const TLS_FILE_NAMES: Readonly<Record<TlsFileProblem['file'], string>> = {
  ca: 'the CA file', cert: 'the client certificate file', key: 'the client key file',
};
const TLS_FILE_FLAGS: Readonly<Record<TlsFileProblem['file'], string>> = {
  ca: '--nats-ca, NATS_CA', cert: '--nats-cert, NATS_CERT', key: '--nats-key, NATS_KEY',
};

/** Which TLS file holds the wrong thing, and what it holds instead; never a byte of it. */
export interface TlsFileProblem {
  readonly file: 'ca' | 'cert' | 'key';
  readonly path: string;
  readonly detail: string;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n[\s\S]*?-----END \1-----/g;

/** What a PEM file holds (a key before a request before a certificate), for "holds X, not Y". */
function heldInstead(text: string): string | null {
  const labels = [...text.matchAll(PEM_BLOCK)].map((m) => m[1] ?? '');
  if (labels.some((l) => /PRIVATE KEY$/.test(l))) return 'a private key';
  if (labels.some((l) => /CERTIFICATE REQUEST$/.test(l))) return 'a certificate request';
  if (labels.some((l) => l === 'CERTIFICATE' || l === 'TRUSTED CERTIFICATE')) return 'a certificate';
  if (labels.some((l) => l === 'PUBLIC KEY')) return 'a public key';
  return null;
}

function certificatesIn(text: string): string[] {
  return [...text.matchAll(PEM_BLOCK)].filter((m) => m[1] === 'CERTIFICATE' || m[1] === 'TRUSTED CERTIFICATE').map((m) => m[0]);
}

/**
 * Whether the TLS files hold what they are given as: the CA file certificates, the certificate
 * file a certificate, the key file an unencrypted private key that is the certificate's. The
 * TLS stack said only "PEM routines::no start line" or "DECODER routines::unsupported", on
 * connecting. `certName` names the certificate in the key's mismatch (a flag, for the CLI).
 * Files that cannot be read are left to the caller (they are named by their own checks).
 */
export async function tlsFilesProblem(tls: TlsFiles, certName: string | undefined = tls.certFile): Promise<TlsFileProblem | null> {
  const text = async (path: string): Promise<string | null> => readFile(path, 'latin1').catch(() => null);
  if (tls.caFile) {
    const ca = await text(tls.caFile);
    if (ca !== null) {
      const problem = certificatesProblem(ca, 'give the CA certificate that signed the NATS server\'s');
      if (problem) return { file: 'ca', path: tls.caFile, detail: problem };
    }
  }
  let cert: X509Certificate | null = null;
  if (tls.certFile) {
    const pem = await text(tls.certFile);
    if (pem !== null) {
      // A file with the certificate and its key together is a good certificate file.
      const held = certificatesIn(pem).length === 0 ? heldInstead(pem) : null;
      if (held === 'a private key') return { file: 'cert', path: tls.certFile, detail: 'holds a private key, not a certificate (are --nats-cert and --nats-key swapped?)' };
      if (held === 'a certificate request') return { file: 'cert', path: tls.certFile, detail: 'holds a certificate request, not a certificate: give the certificate the CA signed from it' };
      const problem = certificatesProblem(pem, null);
      if (problem) return { file: 'cert', path: tls.certFile, detail: problem };
      cert = new X509Certificate(certificatesIn(pem)[0] as string);
    }
  }
  if (tls.keyFile) {
    const pem = await text(tls.keyFile);
    if (pem !== null) {
      const block = [...pem.matchAll(PEM_BLOCK)].find((m) => /PRIVATE KEY$/.test(m[1] ?? ''));
      if (!block) {
        const held = heldInstead(pem);
        return {
          file: 'key', path: tls.keyFile,
          detail: held === 'a certificate' ? 'holds a certificate, not a private key (are --nats-cert and --nats-key swapped?)'
            : held ? `holds ${held}, not a private key` : 'holds no PEM private key (-----BEGIN PRIVATE KEY-----)',
        };
      }
      // Node's TLS cannot ask for a passphrase: an encrypted key failed as "bad decrypt" or hung on a prompt.
      if (block[1] === 'ENCRYPTED PRIVATE KEY' || /Proc-Type:\s*4,ENCRYPTED/.test(block[0])) {
        return { file: 'key', path: tls.keyFile, detail: 'is encrypted (it has a passphrase), which the NATS client cannot ask for: give it decrypted, e.g. openssl pkey -in KEY -out PLAIN (mode 600)' };
      }
      let key: KeyObject;
      try {
        key = createPrivateKey(block[0]);
      } catch {
        return { file: 'key', path: tls.keyFile, detail: 'holds a private key block that cannot be read (damaged, or of a kind this system does not know)' };
      }
      if (cert && !cert.checkPrivateKey(key)) {
        return { file: 'key', path: tls.keyFile, detail: `is not the private key of the certificate in ${certName ?? 'the certificate file'}` };
      }
    }
  }
  return null;
}

// What is wrong with a file that must hold certificates; `want` says what to give instead.
function certificatesProblem(pem: string, want: string | null): string | null {
  const found = certificatesIn(pem);
  const tail = want ? `: ${want}` : '';
  if (found.length === 0) {
    const held = heldInstead(pem);
    return held ? `holds ${held}, not a certificate${tail}` : `holds no PEM certificate (-----BEGIN CERTIFICATE-----)${tail}`;
  }
  for (const [i, block] of found.entries()) {
    try {
      new X509Certificate(block);
    } catch {
      return `its ${found.length > 1 ? `certificate number ${i + 1}` : 'certificate'} cannot be read (damaged?)${tail}`;
    }
  }
  return null;
}

function codeOf(error: unknown): string {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return '';
}

async function validity(certFile: string): Promise<{ notBefore: Date; notAfter: Date } | null> {
  try {
    const cert = new X509Certificate(await readFile(certFile));
    return { notBefore: new Date(cert.validFrom), notAfter: new Date(cert.validTo) };
  } catch {
    return null;
  }
}

/**
 * What the JetStream API's "none here" answers mean ("jetstream is not enabled", "JetStream not
 * enabled for account"), in words that say which of the two it is and what to change; null for
 * any other answer. `said` is the server's own text, kept at the end.
 */
export function jetStreamMissing(said: string): string | null {
  if (/not enabled for account/i.test(said)) {
    return 'JetStream is not enabled for this connection\'s NATS account: enable it for the account in the server\'s configuration '
      + `(jetstream: enabled in its accounts block), or connect as a user of an account that has it (server: ${said})`;
  }
  if (/jetstream is not enabled|jetstream not enabled/i.test(said)) {
    return `the NATS server has no JetStream: start nats-server with -js (or a jetstream block in its configuration) (server: ${said})`;
  }
  return null;
}
