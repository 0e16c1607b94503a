// Helpers of the webhook tests: a throwaway CA and serving certificates made with the openssl CLI,
// a webhook per test, an HTTPS client that trusts only that CA, and AdmissionReview bodies.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { startWebhookServer, type AdmissionReviewResponse, type WebhookServer, type WebhookServerOptions } from '../../src/adapters/kube/webhook/index.ts';
import type { Logger } from '../../src/ports/index.ts';

const run = promisify(execFile);
const OPENSSL = '/usr/bin/openssl';

export type Pki = { dir: string; caFile: string; ca: Buffer };
export type Issued = { certFile: string; keyFile: string; cert: Buffer; key: Buffer };

/** A CA in a fresh temp dir; `remove()` deletes it. P-256 keys: quick to make, and cert-manager's ECDSA default. */
export async function createPki(): Promise<Pki & { remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-webhook-'));
  const caFile = join(dir, 'ca.crt');
  await run(OPENSSL, [
    'req', '-x509', '-new', '-nodes', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1',
    '-keyout', join(dir, 'ca.key'), '-out', caFile, '-days', '2', '-subj', '/CN=metalfleet-test-ca',
  ]);
  return { dir, caFile, ca: await readFile(caFile), remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A CA for one test, removed at its teardown. */
export async function makePki(t: ExecutionContext): Promise<Pki> {
  const pki = await createPki();
  t.teardown(() => pki.remove());
  return pki;
}

let serial = 1;

/** A serving certificate for 127.0.0.1 and localhost, signed by the CA, as `<name>.crt` and `<name>.key` in `dir`. */
export async function issue(pki: Pki, name: string, dir = pki.dir, cn = `metalfleet-webhook-${name}`): Promise<Issued> {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  const csr = join(pki.dir, `${name}-${serial}.csr`);
  const ext = join(pki.dir, `${name}-${serial}.ext`);
  await writeFile(ext, 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n');
  await run(OPENSSL, ['req', '-new', '-nodes', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-keyout', keyFile, '-out', csr, '-subj', `/CN=${cn}`]);
  await run(OPENSSL, [
    'x509', '-req', '-in', csr, '-CA', pki.caFile, '-CAkey', join(pki.dir, 'ca.key'), '-set_serial', String(1000 + serial++),
    '-days', '1', '-extfile', ext, '-out', certFile,
  ]);
  return { certFile, keyFile, cert: await readFile(certFile), key: await readFile(keyFile) };
}

export type LogLine = { level: 'debug' | 'info' | 'warn' | 'error'; obj: Record<string, unknown>; msg: string | undefined };

/** A Logger that keeps every line, to check what is (and is not) logged. */
export function recordingLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (obj: object, msg?: string) => {
    lines.push({ level, obj: obj as Record<string, unknown>, msg });
  };
  const log = { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => log };
  return log;
}

export type Running = { server: WebhookServer; log: ReturnType<typeof recordingLogger> };

/** A webhook on a free loopback port serving `files`, closed at teardown. */
export async function serve(t: ExecutionContext, files: Issued, options: Partial<WebhookServerOptions> = {}): Promise<Running> {
  const log = recordingLogger();
  const server = await startWebhookServer({ port: 0, certFile: files.certFile, keyFile: files.keyFile, log, ...options });
  t.teardown(() => server.close());
  return { server, log };
}

export type Answer = { status: number; headers: Record<string, string | string[] | undefined>; text: string; json<T = unknown>(): T };

export type CallOptions = { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer };

/** One HTTPS request on its own connection, trusting only `ca`. */
export function call(url: string, ca: Buffer, options: CallOptions = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${url}${options.path ?? '/validate'}`, {
      method: options.method ?? 'POST',
      ca,
      agent: false,
      headers: { 'content-type': 'application/json', ...options.headers },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: <T>() => JSON.parse(text) as T });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Posts a review to /validate (or `path`) and returns the AdmissionReview answer, failing on anything but 200. */
export async function review(url: string, ca: Buffer, body: unknown, path = '/validate'): Promise<AdmissionReviewResponse> {
  const answer = await call(url, ca, { body: JSON.stringify(body), path });
  if (answer.status !== 200) throw new Error(`HTTP ${answer.status}: ${answer.text}`);
  return answer.json<AdmissionReviewResponse>();
}

/** The certificate a fresh TLS connection is served (SHA-256 fingerprint), trusting only `ca`. */
export function servedFingerprint(port: number, ca: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
      const fingerprint = socket.getPeerCertificate().fingerprint256;
      socket.end();
      resolve(fingerprint);
    });
    socket.on('error', reject);
  });
}

type Obj = Record<string, unknown>;

const GVK: Record<string, { group: string; version: string; resource: string }> = {
  BareMetalHost: { group: 'metal3.io', version: 'v1alpha1', resource: 'baremetalhosts' },
  MaasCluster: { group: 'infrastructure.cluster.x-k8s.io', version: 'v1beta1', resource: 'maasclusters' },
  MaasMachine: { group: 'infrastructure.cluster.x-k8s.io', version: 'v1beta1', resource: 'maasmachines' },
  MaasMachineTemplate: { group: 'infrastructure.cluster.x-k8s.io', version: 'v1beta1', resource: 'maasmachinetemplates' },
};

// As the API server: request.kind is the version the object is sent in (its own apiVersion), so an
// object of another version of a known kind is sent as that version.
function kindOf(obj: Obj): { group: string; version: string; kind: string; resource: string } {
  const kind = String(obj.kind);
  const known = GVK[kind];
  if (known && typeof obj.apiVersion !== 'string') return { ...known, kind };
  const [group, version] = String(obj.apiVersion).includes('/') ? String(obj.apiVersion).split('/') as [string, string] : ['', String(obj.apiVersion)];
  return { group, version, kind, resource: known?.resource ?? `${kind.toLowerCase()}s` };
}

let uids = 0;

/** The AdmissionReview the API server would post for `operation` on `object` (and `oldObject`). */
export function admissionReview(operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT', object: Obj | null, oldObject: Obj | null = null, uid = `uid-${++uids}-${Date.now()}`): Obj {
  const subject = object ?? oldObject ?? {};
  const { group, version, kind, resource } = kindOf(subject);
  const metadata = (subject.metadata ?? {}) as Obj;
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group, version, kind },
      resource: { group, version, resource },
      requestKind: { group, version, kind },
      requestResource: { group, version, resource },
      name: metadata.name,
      namespace: metadata.namespace,
      operation,
      userInfo: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] },
      object,
      oldObject,
      dryRun: false,
      options: operation === 'DELETE' ? { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' } : { kind: `${operation === 'CREATE' ? 'Create' : 'Update'}Options`, apiVersion: 'meta.k8s.io/v1' },
    },
  };
}

/**
 * A throwaway CA and server certificate shared by every test of a file: made before the first,
 * removed after the last. Read `tls.pki` and `tls.files` inside the tests.
 */
export function fileTls(): { readonly pki: Pki; readonly files: Issued } {
  const tls = {} as { pki: Pki & { remove(): Promise<void> }; files: Issued };
  test.before(async () => {
    tls.pki = await createPki();
    tls.files = await issue(tls.pki, 'tls');
  });
  test.after.always(() => tls.pki?.remove());
  return tls;
}
