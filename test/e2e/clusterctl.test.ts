// The clusterctl provider end to end, as a Cluster API user meets it: the release folder
// (`npm run release:clusterctl`), its files substituted as clusterctl substitutes them
// (test/support/clusterctl-vars.ts), applied with kubectl to the Kubernetes API test server (a
// process) where clusterctl init would have put cert-manager and Cluster API first; then the
// controller run as its Deployment says (`metalfleet node … --no-hosts`, a process, with the MAAS
// credentials read back from the Secret the components made) against the MAAS simulator, while
// the test plays Cluster API's controllers (Machines, bootstrap Secrets, MaasMachines stamped from
// the templates) as the MAAS kubectl e2e test does with CAPMAAS's example.
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { parseAllDocuments, stringify } from 'yaml';
import { COMPONENTS_FILE, ROOT, releaseFiles } from '../../scripts/release-clusterctl.ts';
import { clusterctlInitCrdsYaml } from '../support/capi-crds.ts';
import { substitute } from '../support/clusterctl-vars.ts';

const execFileAsync = promisify(execFile);
const KUBE_API = fileURLToPath(new URL('../support/kube-api/main.ts', import.meta.url));
type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; uid?: string; labels?: Record<string, string> }; spec?: Record<string, unknown>; status?: Record<string, unknown> };

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

interface Cluster {
  readonly kubeconfig: string;
  readonly dir: string;
  kubectl(...args: string[]): Promise<string>;
  /** Writes the text to a file of the test and `kubectl apply --server-side=false -f` it. */
  apply(name: string, text: string): Promise<string>;
}

/** The API server as a process, with what clusterctl init installs before a provider. */
async function managementCluster(t: ExecutionContext): Promise<Cluster> {
  const api = start(t, process.execPath, ['--import=tsx', KUBE_API, '--port', '0']);
  const { kubeconfig } = JSON.parse(await line(api, /^\{/)) as { kubeconfig: string };
  const dir = await mkdtemp(join(tmpdir(), 'e2e-clusterctl-'));
  let calls = 0;
  const kubectl = async (...args: string[]): Promise<string> => {
    // A discovery cache per call: CRDs are installed and used seconds apart.
    const cache = join(dir, `cache-${++calls}`);
    try {
      const { stdout } = await execFileAsync('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', cache, ...args], { cwd: ROOT, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
      return stdout;
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(`kubectl ${args.join(' ')}: ${e.stderr || e.message}`);
    }
  };
  const apply = async (name: string, text: string): Promise<string> => {
    const file = join(dir, name);
    await writeFile(file, text);
    return kubectl('apply', '--server-side=false', '-f', file);
  };
  await apply('clusterctl-init.yaml', clusterctlInitCrdsYaml());
  return { kubeconfig, dir, kubectl, apply };
}

function objectsOf(text: string): Obj[] {
  return parseAllDocuments(text).map((d) => d.toJS() as Obj).filter((o) => o !== null);
}

const INFRA_NAMESPACE = 'mf-infra';
const maasVariables = (endpoint: string, key: string) => ({ MAAS_ENDPOINT: endpoint, MAAS_API_KEY: key, METALFLEET_NAMESPACE: INFRA_NAMESPACE });

const clusterVariables = (namespace: string, controlPlane: number, workers: number) => ({
  CLUSTER_NAME: 'c1', NAMESPACE: namespace, KUBERNETES_VERSION: 'v1.33.1', CONTROL_PLANE_MACHINE_COUNT: String(controlPlane), WORKER_MACHINE_COUNT: String(workers),
  MAAS_DNS_DOMAIN: 'maas', CONTROL_PLANE_MACHINE_IMAGE: 'ubuntu/jammy', WORKER_MACHINE_IMAGE: 'ubuntu/jammy',
});

test.serial('clusterctl - the substituted components apply with kubectl: CRDs, RBAC, the manager Deployment, the webhook, all in the chosen namespace and labelled', async (t) => {
  const cluster = await managementCluster(t);
  const files = await releaseFiles();
  const components = substitute(files.get(COMPONENTS_FILE)!, maasVariables('http://maas.example:5240/MAAS', 'ck:tk:e2e-secret'), COMPONENTS_FILE);
  const out = await cluster.apply('components.yaml', components);
  const applied = objectsOf(components);
  t.is(out.trim().split('\n').filter((l) => / created$/.test(l)).length, applied.length, out);
  t.regex(out, /customresourcedefinition\.apiextensions\.k8s\.io\/maasmachines\.infrastructure\.cluster\.x-k8s\.io created/);
  t.regex(out, /deployment\.apps\/metalfleet-controller-manager created/);
  t.regex(out, /validatingwebhookconfiguration\.admissionregistration\.k8s\.io\/metalfleet-infrastructure created/);

  // Read back from the server: the provider label on each, the namespace the user chose.
  for (const o of applied) {
    const resource = `${o.kind.toLowerCase()}.${o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : ''}`.replace(/\.$/, '');
    const got = JSON.parse(await cluster.kubectl('get', resource, o.metadata.name, ...(o.metadata.namespace ? ['-n', o.metadata.namespace] : []), '-o', 'json')) as Obj;
    t.is(got.metadata.labels?.['cluster.x-k8s.io/provider'], 'infrastructure-metalfleet', `${o.kind}/${o.metadata.name}`);
    if (o.metadata.namespace !== undefined) t.is(got.metadata.namespace, INFRA_NAMESPACE, `${o.kind}/${o.metadata.name}`);
  }
  const deployment = JSON.parse(await cluster.kubectl('get', 'deployment', '-n', INFRA_NAMESPACE, 'metalfleet-controller-manager', '-o', 'json')) as { spec: { template: { spec: { containers: Array<{ name: string; args: string[] }> } } } };
  t.deepEqual(deployment.spec.template.spec.containers.map((c) => c.name), ['manager']);
  const secret = JSON.parse(await cluster.kubectl('get', 'secret', '-n', INFRA_NAMESPACE, 'metalfleet-maas-credentials', '-o', 'json')) as { data: Record<string, string> };
  t.is(Buffer.from(secret.data.MAAS_API_KEY ?? '', 'base64').toString(), 'ck:tk:e2e-secret');
});

test.serial('clusterctl - each cluster template (plain, in-memory, worker pools), generated with a user\'s variables, applies with kubectl', async (t) => {
  const cluster = await managementCluster(t);
  const files = await releaseFiles();
  await cluster.apply('components.yaml', substitute(files.get(COMPONENTS_FILE)!, maasVariables('http://maas.example:5240/MAAS', 'ck:tk:ts'), COMPONENTS_FILE));
  const flavours = [...files.keys()].filter((f) => f.startsWith('cluster-template'));
  t.deepEqual(flavours.sort(), ['cluster-template-in-memory.yaml', 'cluster-template-worker-pools.yaml', 'cluster-template.yaml']);
  for (const [i, file] of flavours.entries()) {
    const namespace = `team-${i}`;
    await cluster.kubectl('create', 'namespace', namespace);
    const text = substitute(files.get(file)!, clusterVariables(namespace, 3, 2), file);
    const out = await cluster.apply(file, text);
    t.is(out.trim().split('\n').filter((l) => / created$/.test(l)).length, objectsOf(text).length, `${file}: ${out}`);
    const templates = JSON.parse(await cluster.kubectl('get', 'maasmachinetemplates', '-n', namespace, '-o', 'json')) as { items: Obj[] };
    const byName = Object.fromEntries(templates.items.map((m) => [m.metadata.name, (m.spec as { template: { spec: Record<string, unknown> } }).template.spec]));
    t.is(byName['c1-control-plane']?.minCPU, 4, file);
    t.is(byName['c1-control-plane']?.deployInMemory, file === 'cluster-template-in-memory.yaml', `${file}: the control plane in memory only in that flavour`);
    t.is(byName['c1-md-0']?.deployInMemory, false, `${file}: workers on disk (the CRD's default)`);
    const deployments = JSON.parse(await cluster.kubectl('get', 'machinedeployments', '-n', namespace, '-o', 'json')) as { items: Obj[] };
    t.deepEqual(deployments.items.map((d) => [d.metadata.name, d.spec?.replicas]).sort(), file === 'cluster-template-worker-pools.yaml' ? [['c1-md-0', 2], ['c1-md-1', 1]] : [['c1-md-0', 2]], file);
    const kcp = JSON.parse(await cluster.kubectl('get', 'kubeadmcontrolplane', '-n', namespace, 'c1-control-plane', '-o', 'json')) as Obj;
    t.is(kcp.spec?.replicas, 3);
  }
});

/**
 * What KubeadmControlPlane and MachineDeployment controllers would create for the template's
 * objects: a Machine per replica, its bootstrap data Secret, and its MaasMachine stamped from the
 * MaasMachineTemplate, owned by the Machine.
 */
async function playClusterApi(cluster: Cluster, objects: readonly Obj[], namespace: string): Promise<string[]> {
  const templates = new Map(objects.filter((o) => o.kind === 'MaasMachineTemplate').map((o) => [o.metadata.name, (o.spec as { template: { spec: Record<string, unknown> } }).template.spec]));
  const clusterName = objects.find((o) => o.kind === 'Cluster')!.metadata.name;
  const wanted: Array<{ name: string; template: string; labels: Record<string, string> }> = [];
  for (const o of objects) {
    const spec = o.spec as Record<string, unknown>;
    if (o.kind === 'KubeadmControlPlane') {
      const template = ((spec.machineTemplate as { infrastructureRef: { name: string } }).infrastructureRef).name;
      for (let i = 0; i < Number(spec.replicas); i++) wanted.push({ name: `${o.metadata.name}-${i}`, template, labels: { 'cluster.x-k8s.io/control-plane': '' } });
    }
    if (o.kind === 'MachineDeployment') {
      const template = ((spec.template as { spec: { infrastructureRef: { name: string } } }).spec.infrastructureRef).name;
      for (let i = 0; i < Number(spec.replicas); i++) wanted.push({ name: `${o.metadata.name}-${i}`, template, labels: { 'cluster.x-k8s.io/deployment-name': o.metadata.name } });
    }
  }
  const meta = (name: string, labels: Record<string, string>) => ({ name, namespace, labels: { 'cluster.x-k8s.io/cluster-name': clusterName, ...labels } });
  const machines = wanted.flatMap(({ name, labels }) => [
    { apiVersion: 'v1', kind: 'Secret', metadata: meta(name, {}), type: 'cluster.x-k8s.io/secret', stringData: { value: `#cloud-config\nhostname: ${name}\n`, format: 'cloud-config' } },
    { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', metadata: meta(name, labels), spec: { clusterName, bootstrap: { dataSecretName: name }, infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine', name } } },
  ]);
  await cluster.apply('machines.yaml', machines.map((m) => stringify(m)).join('---\n'));
  const uids = new Map((JSON.parse(await cluster.kubectl('get', 'machines', '-n', namespace, '-o', 'json')) as { items: Obj[] }).items.map((m) => [m.metadata.name, m.metadata.uid]));
  const maasMachines = wanted.map(({ name, template, labels }) => ({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'MaasMachine',
    metadata: { ...meta(name, labels), ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', name, uid: uids.get(name), controller: true }] },
    spec: templates.get(template),
  }));
  await cluster.apply('maasmachines.yaml', maasMachines.map((m) => stringify(m)).join('---\n'));
  return wanted.map((w) => w.name);
}

test.serial('clusterctl - bring-up: the components and a generated plain cluster applied with kubectl, the manager run as its Deployment says, and the cluster\'s MaasMachines become ready against the MAAS simulator', async (t) => {
  const cluster = await managementCluster(t);
  const sim = start(t, process.execPath, ['bin/metalfleet.js', 'sim', 'maas', '--deploy-ms', '20']);
  const endpoint = (await line(sim, /^MAAS_ENDPOINT=/)).slice('MAAS_ENDPOINT='.length);
  const key = (await line(sim, /^MAAS_API_KEY=/)).slice('MAAS_API_KEY='.length);
  const files = await releaseFiles();
  await cluster.apply('components.yaml', substitute(files.get(COMPONENTS_FILE)!, maasVariables(endpoint, key), COMPONENTS_FILE));
  await cluster.kubectl('create', 'namespace', 'workloads');
  const text = substitute(files.get('cluster-template.yaml')!, clusterVariables('workloads', 1, 2), 'cluster-template.yaml');
  await cluster.apply('cluster.yaml', text);
  const names = await playClusterApi(cluster, objectsOf(text), 'workloads');
  t.deepEqual(names, ['c1-control-plane-0', 'c1-md-0-0', 'c1-md-0-1']);

  // The manager as the Deployment runs it, out of cluster: its args with the kubeconfig for
  // --in-cluster, its environment from the Secret the components made.
  const deployment = JSON.parse(await cluster.kubectl('get', 'deployment', '-n', INFRA_NAMESPACE, 'metalfleet-controller-manager', '-o', 'json')) as { spec: { template: { spec: { containers: Array<{ args: string[] }> } } } };
  const secret = JSON.parse(await cluster.kubectl('get', 'secret', '-n', INFRA_NAMESPACE, 'metalfleet-maas-credentials', '-o', 'json')) as { data: Record<string, string> };
  const env = Object.fromEntries(Object.entries(secret.data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  t.is(env.MAAS_ENDPOINT, endpoint);
  const args = deployment.spec.template.spec.containers[0]!.args.map((a) => a.replace('$(POD_NAME)', 'manager-0').replace('$(POD_NAMESPACE)', INFRA_NAMESPACE));
  const flag = (name: string, value: string) => (a: string, i: number, all: string[]) => (all[i - 1] === name ? value : a);
  const local = args.map((a) => (a === '--in-cluster' ? `--kubeconfig=${cluster.kubeconfig}` : a)).map(flag('--health-port', '0')).map(flag('--health-bind', '127.0.0.1'));
  t.true(local.includes('--no-hosts'));
  const node = start(t, process.execPath, ['bin/metalfleet.js', ...local, '--log-level', 'warn'], { MAAS_ENDPOINT: env.MAAS_ENDPOINT, MAAS_API_KEY: env.MAAS_API_KEY });
  await line(node, /"health"/);

  for (const name of names) await cluster.kubectl('wait', '-n', 'workloads', '--for=jsonpath={.status.ready}=true', `maasmachine/${name}`, '--timeout=120s');
  await cluster.kubectl('wait', '-n', 'workloads', '--for=jsonpath={.status.ready}=true', 'maascluster/c1', '--timeout=60s');
  const machines = JSON.parse(await cluster.kubectl('get', 'maasmachines', '-n', 'workloads', '-o', 'json')) as { items: Obj[] };
  const ids = machines.items.map((m) => String(m.spec?.providerID));
  for (const id of ids) t.regex(id, /^maas:\/\/\/az[12]\/[a-z0-9]+$/);
  t.is(new Set(ids).size, 3, 'three distinct MAAS machines');
  // Leader election in the provider's namespace: the manager held the Lease while it drove them.
  t.regex(await cluster.kubectl('get', 'lease', '-n', INFRA_NAMESPACE, 'metalfleet-controller', '-o', 'jsonpath={.spec.holderIdentity}'), /^manager-0_/);
});
