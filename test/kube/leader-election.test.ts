// Two `metalfleet node --kubeconfig` processes (no NATS) against the Kubernetes API test server,
// itself a process: the second waits while the first holds the Lease and drives nothing; after
// kill -9 of the first it takes the Lease within the lease duration and drives the hosts.
import test from 'ava';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoordinationV1Api, CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { createRemoteFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import type { RemoteFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { bmh, secret } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';
import { metalfleet, ROOT } from '../cli/run.ts';

interface Proc {
  readonly child: ChildProcess;
  readonly lines: string[];
  stderr(): string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function run(args: readonly string[]): Proc {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let out = '';
  let err = '';
  child.stdout?.on('data', (b: Buffer) => {
    out += b.toString('utf8');
    const parts = out.split('\n');
    out = parts.pop() ?? '';
    lines.push(...parts);
  });
  child.stderr?.on('data', (b: Buffer) => {
    err += b.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, lines, stderr: () => err, exited };
}

async function firstLine<T>(p: Proc, what: string): Promise<T> {
  let gone = false;
  void p.exited.then(() => (gone = true));
  await waitUntil(() => p.lines.length > 0 || gone, 60_000, `${what} prints its line`, 20);
  if (p.lines.length === 0) throw new Error(`${what} exited before printing its line: ${p.stderr()}`);
  return JSON.parse(p.lines[0]!) as T;
}

// Short timings: a standby takes over 5 s after it last saw the lease change; a leader that has
// not renewed for 3.5 s stops. client-go's rule renewDeadline > 1.2 × retryPeriod holds. Shorter
// ones make a leader on a loaded machine (tests in parallel) miss its deadline and exit, rightly.
const LEASE_MS = 5_000;
const RENEW_DEADLINE_MS = 3_500;
const RETRY_MS = 300;
const ELECTION = ['--leader-election-namespace', 'lab', '--leader-election-id', 'mf-test', '--leader-election-lease-duration', String(LEASE_MS), '--leader-election-renew-deadline', String(RENEW_DEADLINE_MS), '--leader-election-retry-period', String(RETRY_MS)];

interface NodeLine { health: string; mode: string; lease: string; identity: string }

test('leader election - a second process waits, drives nothing while the first holds the Lease, and takes over after kill -9', async (t) => {
  const procs: Proc[] = [];
  const fixtures: RemoteFixtureProvisioner[] = [];
  t.teardown(async () => {
    for (const f of fixtures) await f.close().catch(() => undefined);
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  });
  const started = (args: readonly string[]): Proc => {
    const p = run(args);
    procs.push(p);
    return p;
  };

  const apiProc = started(['--import=tsx', 'test/support/kube-api/main.ts', '--port', '0', '--crd-dir', 'deploy/crds']);
  const { kubeconfig } = await firstLine<{ url: string; kubeconfig: string }>(apiProc, 'the Kubernetes API test server');
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const leases = kc.makeApiClient(CoordinationV1Api);
  // The server as a process checks namespaces, as a real one does.
  await core.createNamespace({ body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lab' } } });
  await core.createNamespacedSecret({ namespace: 'lab', body: secret('bmc', 'lab') as never });
  const createHost = (name: string): Promise<unknown> => custom.createNamespacedCustomObject({ group: 'metal3.io', version: 'v1alpha1', plural: 'baremetalhosts', namespace: 'lab', body: bmh(name) as object });
  const stateOf = async (name: string): Promise<string | undefined> => {
    const host = await custom.getNamespacedCustomObject({ group: 'metal3.io', version: 'v1alpha1', plural: 'baremetalhosts', namespace: 'lab', name }) as { status?: { provisioning?: { state?: string } } };
    return host.status?.provisioning?.state;
  };
  const provisioned = async (names: readonly string[]): Promise<boolean> => (await Promise.all(names.map(stateOf))).every((s) => s === 'provisioned');
  // Says where the hosts are stuck, and whether the node is still there, when a wait times out.
  const waitProvisioned = async (names: readonly string[], by: Proc, what: string): Promise<void> => {
    try {
      await waitUntil(() => provisioned(names), 60_000, what, 100);
    } catch (error) {
      const states = await Promise.all(names.map(stateOf));
      throw new Error(`${String(error)}; states ${JSON.stringify(states)}; node exit ${String(by.child.exitCode)}; stderr: ${by.stderr().slice(-2_000)}`);
    }
  };
  const lease = async () => (await leases.readNamespacedLease({ namespace: 'lab', name: 'mf-test' })).spec ?? {};

  // One fixture backend per node: what each process sent to its backend is counted apart.
  const fixtureServer = async (label: string): Promise<{ url: string; fixture: RemoteFixtureProvisioner }> => {
    const { url } = await firstLine<{ url: string }>(started(['bin/metalfleet.js', 'fixture-server', '--port', '0']), `fixture server ${label}`);
    const fixture = await createRemoteFixtureProvisioner({ url });
    fixtures.push(fixture);
    return { url, fixture };
  };
  const [{ url: urlA, fixture: fixtureA }, { url: urlB, fixture: fixtureB }] = await Promise.all([fixtureServer('A'), fixtureServer('B')]);
  const node = (name: string, url: string): Proc => started(['bin/metalfleet.js', 'node', '--kubeconfig', kubeconfig, '--name', name, '--health-port', '0', '--log-level', 'warn', '--shards', '8', '--fixture-url', url, ...ELECTION]);
  const readyz = async (health: string): Promise<{ code: number; body: string }> => {
    const res = await fetch(`${health}/readyz`);
    return { code: res.status, body: await res.text() };
  };

  for (const name of ['h-0', 'h-1', 'h-2']) await createHost(name);
  const a = node('node-a', urlA);
  const infoA = await firstLine<NodeLine>(a, 'node A');
  t.is(infoA.lease, 'lab/mf-test');
  await waitUntil(async () => (await readyz(infoA.health)).code === 200, 30_000, 'A ready');
  await waitProvisioned(['h-0', 'h-1', 'h-2'], a, 'A provisions the first hosts');
  t.is((await lease()).holderIdentity, infoA.identity);
  t.true((await fixtureA.callLog()).length > 0, 'A drove its backend');

  const b = node('node-b', urlB);
  const infoB = await firstLine<NodeLine>(b, 'node B');
  t.not(infoB.identity, infoA.identity);
  // New hosts while A leads: work a wrongly-leading B would pick up.
  for (const name of ['h-3', 'h-4']) await createHost(name);
  // Watched over two lease durations from B's start, long enough for a B that ignored the
  // Lease (or read A's renewTime against its own clock wrongly) to have started driving.
  const watchFrom = Date.now();
  let polls = 0;
  await waitUntil(async () => {
    // A leader that lost its lease (a stalled machine) exits: then this test has nothing to check.
    t.is(a.child.exitCode, null, `A exited: ${a.stderr()}`);
    const r = await readyz(infoB.health);
    t.is(r.code, 503, `B must not be ready while A leads: ${r.body}`);
    t.true(r.body.includes(`waiting for the leader lease lab/mf-test`), r.body);
    t.deepEqual(await fixtureB.callLog(), [], 'B sent nothing to its backend');
    polls += 1;
    return Date.now() - watchFrom > 2 * LEASE_MS;
  }, 30_000, 'B watched for two lease durations', 100);
  t.true(polls > 5);
  t.regex((await readyz(infoB.health)).body, new RegExp(`held by ${infoA.identity}`));
  await waitProvisioned(['h-3', 'h-4'], a, 'A provisions the hosts made while B waits');
  t.deepEqual(await fixtureB.callLog(), []);
  t.is((await lease()).holderIdentity, infoA.identity);

  a.child.kill('SIGKILL');
  const killedAt = Date.now();
  await a.exited;
  for (const name of ['h-5', 'h-6']) await createHost(name);
  await waitUntil(async () => (await lease()).holderIdentity === infoB.identity, 30_000, 'B takes the Lease', 50);
  const takeoverMs = Date.now() - killedAt;
  // Within the lease duration of A's last renewal (at most one retry period before the kill),
  // plus B's own retry period and jitter, plus process and polling slack.
  t.true(takeoverMs <= LEASE_MS + 2 * RETRY_MS + 1_000, `took ${takeoverMs} ms`);
  // And not before: A renewed at most one retry period before the kill, and B waits a whole
  // lease from the last change it saw.
  t.true(takeoverMs >= LEASE_MS - RETRY_MS, `took ${takeoverMs} ms`);
  t.log(`B took the Lease ${takeoverMs} ms after A was killed`);
  const spec = await lease();
  t.is(spec.leaseTransitions, 1);
  t.is(spec.leaseDurationSeconds, LEASE_MS / 1_000);
  await waitUntil(async () => (await readyz(infoB.health)).code === 200, 30_000, 'B ready');
  await waitProvisioned(['h-5', 'h-6'], b, 'B provisions the hosts made after the kill');
  t.true((await fixtureB.callLog()).some((c) => c.host === 'lab/h-5'), 'B drove its backend');

  b.child.kill('SIGTERM');
  t.is((await b.exited).code, 0, b.stderr());
  // A graceful stop gives the Lease up: a next replica need not wait it out.
  t.is((await lease()).holderIdentity, '');
});

test('leader election - a leader whose API server stops answering exits within the renew deadline', async (t) => {
  const procs: Proc[] = [];
  t.teardown(() => {
    for (const p of procs) {
      p.child.kill('SIGCONT');
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    }
  });
  const apiProc = run(['--import=tsx', 'test/support/kube-api/main.ts', '--port', '0', '--crd-dir', 'deploy/crds']);
  procs.push(apiProc);
  const { kubeconfig } = await firstLine<{ url: string; kubeconfig: string }>(apiProc, 'the Kubernetes API test server');
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lab' } } });
  const a = run(['bin/metalfleet.js', 'node', '--kubeconfig', kubeconfig, '--name', 'node-a', '--health-port', '0', '--log-level', 'warn', '--shards', '4', ...ELECTION]);
  procs.push(a);
  const info = await firstLine<NodeLine>(a, 'node A');
  await waitUntil(async () => (await fetch(`${info.health}/readyz`)).status === 200, 30_000, 'A ready');
  // The API server freezes: A's renewals hang, none fails outright. Its deadline still fires.
  apiProc.child.kill('SIGSTOP');
  const frozenAt = Date.now();
  const { code } = await a.exited;
  const exitedAfter = Date.now() - frozenAt;
  t.is(code, 1);
  t.regex(a.stderr(), /lost the leader lease lab\/mf-test \(the lease was not renewed within the renew deadline \(3500 ms\)\); exiting/);
  // Well before a standby could take the Lease (2 s after the last change it saw).
  t.true(exitedAfter < LEASE_MS, `exited ${exitedAfter} ms after the API server froze`);
});

// A leader whose informers never sync (the CRDs are not installed yet) waited for that sync after
// SIGTERM: it kept running, and the Lease stayed held until a second signal killed it.
test('leader election - a leader still listing stops on SIGTERM, exits 0 and gives the Lease up', async (t) => {
  const procs: Proc[] = [];
  t.teardown(() => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  });
  // No --crd-dir: BareMetalHost cannot be listed, so the node never syncs.
  const apiProc = run(['--import=tsx', 'test/support/kube-api/main.ts', '--port', '0']);
  procs.push(apiProc);
  const { kubeconfig } = await firstLine<{ url: string; kubeconfig: string }>(apiProc, 'the Kubernetes API test server');
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lab' } } });
  const leases = kc.makeApiClient(CoordinationV1Api);
  const holder = async (): Promise<string | undefined> => (await leases.readNamespacedLease({ namespace: 'lab', name: 'mf-test' }).catch(() => null))?.spec?.holderIdentity;
  const a = run(['bin/metalfleet.js', 'node', '--kubeconfig', kubeconfig, '--name', 'node-a', '--health-port', '0', '--log-level', 'info', '--shards', '4', ...ELECTION]);
  procs.push(a);
  const info = await firstLine<NodeLine>(a, 'node A');
  await waitUntil(async () => (await holder()) === info.identity, 30_000, 'A holds the Lease', 50);
  const ready = await fetch(`${info.health}/readyz`);
  t.is(ready.status, 503, 'not ready: its informers have not synced');
  a.child.kill('SIGTERM');
  const { code, signal } = await a.exited;
  t.deepEqual({ code, signal }, { code: 0, signal: null }, a.stderr().slice(-2_000));
  t.is(await holder(), '', 'the Lease is given up');
});

test('leader election - its flags: only for the Kubernetes mode without NATS, and client-go\'s timing rules', async (t) => {
  const withNats = await metalfleet('node', '--nats', 'nats://127.0.0.1:1', '--allow-unsigned-commands', '--leader-election-id', 'x');
  t.is(withNats.code, 2);
  t.regex(withNats.stderr, /--leader-election-id: leader election applies to --kubeconfig or --in-cluster without NATS/);
  const dir = mkdtempSync(join(tmpdir(), 'metalfleet-le-flags-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\ncurrent-context: x\nclusters:\n- name: c\n  cluster: {server: "https://127.0.0.1:1"}\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\n');
  const badTiming = await metalfleet('node', '--kubeconfig', kubeconfig, '--leader-election-lease-duration', '5000', '--leader-election-renew-deadline', '5000');
  t.is(badTiming.code, 2);
  t.regex(badTiming.stderr, /lease duration \(5000 ms\) must be greater than the renew deadline \(5000 ms\)/);
  const help = await metalfleet('node', '--help');
  t.regex(help.stdout, /--no-leader-elect/);
  t.regex(help.stdout, /--leader-election-namespace/);
});
