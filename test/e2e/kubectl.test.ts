// What a user does with kubectl, end to end: the Kubernetes API test server as a process, the
// CRDs installed with `kubectl apply`, BMO's and CAPMAAS's manifests applied, and the controller
// (`metalfleet node --kubeconfig …`, a process) driving them while kubectl waits, annotates and
// deletes. kubectl is the machine's (the test script installs Debian's kubernetes-client when it
// is missing); under CI its absence fails this test.
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { ROOT } from '../cli/run.ts';
import { stringify } from 'yaml';
import { NOT_ACCEPTED, samples } from '../deploy/upstream-sample-set.ts';
import { toolAvailable } from '../support/tools.ts';

const run = toolAvailable('kubectl') ? test.serial : test.serial.skip;
const execFileAsync = promisify(execFile);
const KUBE_API = fileURLToPath(new URL('../support/kube-api/main.ts', import.meta.url));

interface Proc {
  readonly child: ChildProcess;
  readonly lines: string[];
  stderr(): string;
}

function start(t: ExecutionContext, command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Proc {
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, METALFLEET_FROM_SOURCE: '1', ...env } });
  const lines: string[] = [];
  let err = '';
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(l));
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await once(child, 'exit');
    clearTimeout(timer);
  });
  return { child, lines, stderr: () => err };
}

async function line(p: Proc, match: RegExp, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = p.lines.find((l) => match.test(l));
    if (found !== undefined) return found;
    if (p.child.exitCode !== null) throw new Error(`exited ${p.child.exitCode}: ${p.stderr()}`);
    if (Date.now() > deadline) throw new Error(`no line matching ${match} after ${timeoutMs} ms: ${p.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The API server as a process and a kubectl bound to its kubeconfig. */
async function cluster(t: ExecutionContext): Promise<{ kubeconfig: string; kubectl: (...args: string[]) => Promise<string> }> {
  const api = start(t, process.execPath, ['--import=tsx', KUBE_API, '--port', '0']);
  const { kubeconfig } = JSON.parse(await line(api, /^\{/)) as { kubeconfig: string };
  const caches = await mkdtemp(join(tmpdir(), 'e2e-kubectl-cache-'));
  let calls = 0;
  const kubectl = async (...args: string[]): Promise<string> => {
    // A discovery cache per call: kubectl keeps discovery for hours, and a test installs CRDs and
    // uses their short names seconds later (a user's kubectl would refresh on its own in time).
    const cache = join(caches, String(++calls));
    try {
      const { stdout } = await execFileAsync('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', cache, ...args], { cwd: ROOT, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
      return stdout;
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(`kubectl ${args.join(' ')}: ${e.stderr || e.message}`);
    }
  };
  return { kubeconfig, kubectl };
}

run('kubectl - CRDs applied with kubectl, BMO\'s example hosts applied and listed with BMO\'s columns, provisioned while kubectl waits, rebooted by annotation, deleted through the finalizer', async (t) => {
  const { kubeconfig, kubectl } = await cluster(t);
  t.regex(await kubectl('apply', '-f', 'deploy/crds/'), /customresourcedefinition\.apiextensions\.k8s\.io\/baremetalhosts\.metal3\.io created/);
  t.regex(await kubectl('explain', 'bmh.spec.bmc'), /address/);
  t.regex(await kubectl('create', 'namespace', 'metal3'), /namespace\/metal3 created/);
  // The BMC Secret made with kubectl; the Metal3 guide's host (its own Secret left out) applied.
  await kubectl('create', 'secret', 'generic', 'node-0-bmc-secret', '-n', 'metal3', '--from-literal=username=admin', '--from-literal=password=e2e-password');
  const example = await readFile(join(ROOT, 'test/kube/fixtures/metal3-example.yaml'), 'utf8');
  const hostOnly = join(await mkdtemp(join(tmpdir(), 'e2e-kubectl-')), 'host.yaml');
  await writeFile(hostOnly, example.split(/^---$/m).filter((doc) => /kind: BareMetalHost/.test(doc)).join('\n---\n'));
  t.regex(await kubectl('apply', '-f', hostOnly), /baremetalhost\.metal3\.io\/node-0 created/);
  const table = await kubectl('get', 'bmh', '-n', 'metal3');
  t.regex(table.split('\n')[0] ?? '', /^NAME\s+STATE\s+CONSUMER\s+ONLINE\s+ERROR\s+AGE/);
  t.regex(table, /^node-0\s/m);

  const node = start(t, process.execPath, ['bin/metalfleet.js', 'node', '--kubeconfig', kubeconfig, '--name', 'e2e', '--health-port', '0', '--shards', '8', '--fixture-latency', '20', '--log-level', 'warn', '--leader-election-lease-duration', '3000', '--leader-election-renew-deadline', '2000', '--leader-election-retry-period', '500']);
  await line(node, /"health"/);
  await kubectl('wait', '-n', 'metal3', '--for=jsonpath={.status.provisioning.state}=provisioned', 'bmh/node-0', '--timeout=90s');
  t.regex(await kubectl('get', 'bmh', '-n', 'metal3', 'node-0'), /^node-0\s+provisioned\s+.*true/m);

  // A reboot: the annotation is taken (removed) once the host has been off, and it is on again.
  await kubectl('annotate', '-n', 'metal3', 'bmh/node-0', 'reboot.metal3.io=');
  await kubectl('wait', '-n', 'metal3', '--for=jsonpath={.metadata.annotations.reboot\\.metal3\\.io}-', 'bmh/node-0', '--timeout=60s').catch(async () => {
    // Older kubectl cannot wait for an annotation to go: poll it.
    for (let i = 0; i < 240; i++) {
      if (!(await kubectl('get', '-n', 'metal3', 'bmh/node-0', '-o', 'jsonpath={.metadata.annotations}')).includes('reboot.metal3.io')) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error('the reboot annotation was never taken');
  });
  await kubectl('wait', '-n', 'metal3', '--for=jsonpath={.status.poweredOn}=true', 'bmh/node-0', '--timeout=60s');

  // kubectl delete waits on the finalizer: the object goes only after the host was deprovisioned.
  t.deepEqual(JSON.parse(await kubectl('get', '-n', 'metal3', 'bmh/node-0', '-o', 'jsonpath={.metadata.finalizers}')), ['baremetalhost.metal3.io']);
  t.regex(await kubectl('delete', '-n', 'metal3', 'bmh/node-0', '--timeout=90s'), /baremetalhost\.metal3\.io "node-0" deleted/);
  await t.throwsAsync(kubectl('get', '-n', 'metal3', 'bmh/node-0'), { message: /NotFound/ });
  const events = JSON.parse(await kubectl('get', 'events', '-n', 'metal3', '-o', 'json')) as { items: Array<{ reason?: string; message?: string; involvedObject?: { name?: string } }> };
  const reasons = events.items.filter((e) => e.involvedObject?.name === 'node-0').map((e) => e.reason);
  t.true(reasons.includes('DeprovisioningComplete'), reasons.join(','));
  t.false(JSON.stringify(events).includes('e2e-password'), 'no Event carries the BMC password');
});

run('kubectl - a MaasCluster with its machines, applied with kubectl against the MAAS simulator, becomes ready and is deleted', async (t) => {
  const { kubeconfig, kubectl } = await cluster(t);
  const sim = start(t, process.execPath, ['bin/metalfleet.js', 'sim', 'maas', '--deploy-ms', '20']);
  const endpoint = (await line(sim, /^MAAS_ENDPOINT=/)).slice('MAAS_ENDPOINT='.length);
  const key = (await line(sim, /^MAAS_API_KEY=/)).slice('MAAS_API_KEY='.length);
  await kubectl('apply', '-f', 'deploy/crds/');
  await kubectl('apply', '-f', 'test/kube/fixtures/crds/capi.yaml');
  await kubectl('create', 'namespace', 'capmaas');
  await kubectl('apply', '-f', 'test/kube/fixtures/capmaas-example.yaml');
  const node = start(t, process.execPath, ['bin/metalfleet.js', 'node', '--kubeconfig', kubeconfig, '--name', 'e2e-maas', '--health-port', '0', '--shards', '8', '--log-level', 'warn', '--maas', endpoint, '--leader-election-lease-duration', '3000', '--leader-election-renew-deadline', '2000', '--leader-election-retry-period', '500'], { MAAS_API_KEY: key });
  await line(node, /"health"/);
  await kubectl('wait', '-n', 'capmaas', '--for=jsonpath={.status.ready}=true', 'maasmachine/c1-control-plane-x7k2p', '--timeout=90s');
  await kubectl('wait', '-n', 'capmaas', '--for=jsonpath={.status.ready}=true', 'maascluster/c1', '--timeout=90s');
  const machines = await kubectl('get', 'maasmachines', '-n', 'capmaas');
  t.regex(machines, /c1-control-plane-x7k2p/);
  await kubectl('delete', '-n', 'capmaas', 'maasmachine/c1-control-plane-x7k2p', 'maascluster/c1', '--wait=false');
  await kubectl('wait', '-n', 'capmaas', '--for=delete', 'maasmachine/c1-control-plane-x7k2p', 'maascluster/c1', '--timeout=90s');
  t.notRegex(await kubectl('get', 'maasclusters', '-n', 'capmaas', '-o', 'name'), /c1/);
});

run('kubectl - every BMO and CAPMAAS example and sample applies with kubectl, or is refused where upstream\'s CRDs refuse it, naming the field', async (t) => {
  const { kubectl } = await cluster(t);
  await kubectl('apply', '-f', 'deploy/crds/');
  const dir = await mkdtemp(join(tmpdir(), 'e2e-samples-'));
  const namespaces = new Set(['default']);
  const all = await samples();
  t.true(all.length >= 20, `${all.length} samples`);
  for (const [i, { id, object }] of all.entries()) {
    const meta = object.metadata as { namespace?: string };
    const namespace = meta.namespace ?? 'default';
    if (!namespaces.has(namespace)) {
      await kubectl('create', 'namespace', namespace);
      namespaces.add(namespace);
    }
    const file = join(dir, `${i}.yaml`);
    await writeFile(file, stringify(object));
    // kubectl leaves fields that are null out of what it sends, so an unknown `status: null` that
    // upstream's server would refuse in a raw create never reaches it.
    const listed = NOT_ACCEPTED[id];
    const sent = listed ? { ...listed, unknownFields: listed.unknownFields.filter((f) => !(f in object && object[f] === null)) } : undefined;
    const verdict = sent && (sent.unknownFields.length > 0 || sent.errors.length > 0) ? sent : undefined;
    if (!verdict) {
      t.regex(await kubectl('apply', '--dry-run=server', '-n', namespace, '-f', file), /(created|configured) \(server dry run\)/, id);
      continue;
    }
    const refusal = await kubectl('apply', '--dry-run=server', '-n', namespace, '-f', file).then(() => '', (err: Error) => err.message);
    t.not(refusal, '', `${id}: applied, but upstream refuses it`);
    // The server decodes strictly before it validates: unknown fields are what it names, if any.
    for (const field of verdict.unknownFields) t.true(refusal.includes(`unknown field "${field}"`), `${id}: ${refusal}`);
    if (verdict.unknownFields.length === 0) for (const error of verdict.errors) t.true(refusal.includes(error.split(':')[0] ?? error), `${id}: ${refusal}`);
  }
});
