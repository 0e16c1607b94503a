// A node that cannot talk to the API server says why: an untrusted certificate (and the reason),
// a refused connection (and the address), 401 (the credentials), 403 (the verb and resource).
// Real servers on loopback: a TLS server with a self-signed certificate, a closed port, the
// Kubernetes API test server's failNext, a tiny HTTP server answering as RBAC does.
import test from 'ava';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeCallError } from '../../src/adapters/kube/errors.ts';
import { KubeCalls } from '../../src/adapters/kube/kube-calls.ts';
import { KubeClient } from '../../src/adapters/kube/kube-client.ts';
import { kubeLeaseClient } from '../../src/adapters/kube/leader-election.ts';
import { RESOURCES } from '../../src/adapters/kube/resources.ts';
import { waitUntil } from '../support/wait.ts';
import { ROOT } from '../cli/run.ts';
import { startApi } from './support/kube-node.ts';

const TOKEN = 'sekret-token-value';

function kubeconfigYaml(server: string): string {
  return [
    'apiVersion: v1', 'kind: Config', 'current-context: x',
    'clusters:', `- name: c`, `  cluster: {server: "${server}"${server.startsWith('http:') ? ', insecure-skip-tls-verify: true' : ''}}`,
    'users:', `- name: u`, `  user: {token: ${TOKEN}}`,
    'contexts:', '- name: x', '  context: {cluster: c, user: u}', '',
  ].join('\n');
}

function kubeConfigFor(server: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfigYaml(server));
  return kc;
}

/** The informer's first request, as the adapter makes it. */
async function listHosts(kc: KubeConfig): Promise<KubeCallError> {
  const error: unknown = await new KubeClient(kc, new KubeCalls()).list(RESOURCES.BareMetalHost).then(() => null, (e: unknown) => e);
  if (!(error instanceof KubeCallError)) throw new Error(`expected a KubeCallError, got ${String(error)}`);
  return error;
}

async function listen(server: http.Server | https.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function close(server: http.Server | https.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A port nothing listens on: one the kernel just handed out, closed again. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  const port = await listen(server);
  await close(server);
  return port;
}

test('api errors - an untrusted certificate: says TLS, the server and the reason, not "no answer"', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'metalfleet-kube-tls-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  let requests = 0;
  const server = https.createServer({ cert: readFileSync(join(dir, 'cert.pem')), key: readFileSync(join(dir, 'key.pem')) }, (_req, res) => {
    requests += 1;
    res.end('{}');
  });
  const port = await listen(server);
  t.teardown(() => close(server));
  const error = await listHosts(kubeConfigFor(`https://127.0.0.1:${port}`));
  t.is(error.status, null);
  t.is(error.reason, 'DEPTH_ZERO_SELF_SIGNED_CERT');
  t.is(error.message, `listing baremetalhosts: TLS: the API server at https://127.0.0.1:${port} is not trusted: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT); check certificate-authority-data (or the server address) in the kubeconfig`);
  // The token was never sent to a server we do not trust.
  t.is(requests, 0);
});

test('api errors - a closed port: says the connection was refused, and where', async (t) => {
  const port = await closedPort();
  const error = await listHosts(kubeConfigFor(`https://127.0.0.1:${port}`));
  t.is(error.reason, 'ECONNREFUSED');
  t.is(error.message, `listing baremetalhosts: connection refused: nothing listens at 127.0.0.1:${port} (ECONNREFUSED); is the API server running, and is the kubeconfig's server address right?`);
  t.notRegex(error.message, /no answer/);
});

test('api errors - 401: says the credentials were not accepted, without them', async (t) => {
  const api = await startApi();
  t.teardown(() => api.close());
  api.failNext({ verb: 'list', resource: 'baremetalhosts', status: 401 });
  const error = await listHosts(api.kubeConfig());
  t.is(error.status, 401);
  t.is(error.message, 'listing baremetalhosts: Unauthorized (HTTP 401): the API server did not accept the kubeconfig\'s credentials (a wrong or expired token or client certificate)');
});

test('api errors - 403: the API server\'s RBAC message names the verb and resource; a bare 403 names the permission', async (t) => {
  // What kube-apiserver answers when RBAC says no.
  const rbac = http.createServer((_req, res) => {
    res.writeHead(403, { 'Content-Type': 'application/json' }).end(JSON.stringify({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'baremetalhosts.metal3.io is forbidden: User "system:serviceaccount:metal3:metalfleet-controller" cannot list resource "baremetalhosts" in API group "metal3.io" at the cluster scope',
    }));
  });
  const port = await listen(rbac);
  t.teardown(() => close(rbac));
  const error = await listHosts(kubeConfigFor(`http://127.0.0.1:${port}`));
  t.is(error.status, 403);
  t.is(error.message, 'listing baremetalhosts: Forbidden (HTTP 403): baremetalhosts.metal3.io is forbidden: User "system:serviceaccount:metal3:metalfleet-controller" cannot list resource "baremetalhosts" in API group "metal3.io" at the cluster scope');

  // A 403 without a message (a proxy in front): the call's own permission says what is missing.
  const api = await startApi();
  t.teardown(() => api.close());
  api.failNext({ resource: 'leases', method: 'GET', status: 403, message: '' });
  const bare = await t.throwsAsync(kubeLeaseClient(api.kubeConfig(), { namespace: 'lab', name: 'ctrl' }).get(), { instanceOf: KubeCallError });
  t.is(bare.message, 'reading Lease lab/ctrl: Forbidden (HTTP 403): the kubeconfig\'s user may not get coordination.k8s.io/leases: grant it in the ClusterRole (deploy/rbac/cluster-role.yaml)');
});

test('api errors - metalfleet node against a closed port says so in its log and on /readyz, never the token', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'metalfleet-kube-refused-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const port = await closedPort();
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, kubeconfigYaml(`https://127.0.0.1:${port}`));
  const refused = new RegExp(`connection refused: nothing listens at 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`);

  const start = (...extra: string[]) => {
    const child = spawn(process.execPath, ['bin/metalfleet.js', 'node', '--kubeconfig', kubeconfig, '--health-port', '0', '--log-level', 'warn', '--shards', '4', ...extra], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    t.teardown(() => {
      child.kill('SIGKILL');
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    return { child, stdout: () => out, stderr: () => err };
  };

  // With leader election (the default without NATS), the Lease is the first call.
  const elect = start('--leader-election-retry-period', '100', '--leader-election-renew-deadline', '500', '--leader-election-lease-duration', '1000');
  await waitUntil(() => refused.test(elect.stderr()), 30_000, 'the election logs the refused connection', 20);
  t.regex(elect.stderr(), /reading Lease default\/metalfleet-controller: connection refused/);
  const electHealth = (JSON.parse(elect.stdout().split('\n')[0]!) as { health: string }).health;
  const waiting = await (await fetch(`${electHealth}/readyz`)).text();
  t.regex(waiting, /waiting for the leader lease default\/metalfleet-controller; last try: reading Lease default\/metalfleet-controller: connection refused/);

  // Without it, the informers' lists: /readyz gives the cause.
  const plain = start('--no-leader-elect');
  await waitUntil(() => plain.stdout().includes('\n'), 30_000, 'the node prints its line', 20);
  const { health } = JSON.parse(plain.stdout().split('\n')[0]!) as { health: string };
  let body = '';
  await waitUntil(async () => {
    body = await (await fetch(`${health}/readyz`)).text();
    return refused.test(body);
  }, 30_000, '/readyz names the refused connection', 50);
  t.regex(body, /Kubernetes informers not synced: BareMetalHost \(listing baremetalhosts: connection refused/);
  for (const text of [elect.stderr(), plain.stderr(), body, waiting]) {
    t.false(text.includes(TOKEN));
    t.false(text.includes('no answer from the API server'));
  }
});
