// The clusterctl release folder (`npm run release:clusterctl`) against the provider contract of the
// Cluster API book (developer/providers/contracts/clusterctl.md and infra-machine.md): file names,
// labels, the contract, variables, no secret; and built from deploy/ as it is.
import { execFile } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { parse, parseAllDocuments } from 'yaml';
import { COMPONENTS_FILE, ROOT, releaseDir, releaseFiles } from '../../scripts/release-clusterctl.ts';
import { ClusterctlVariableError, listVariables, substitute } from '../support/clusterctl-vars.ts';

const execFileAsync = promisify(execFile);
type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> }; spec?: Record<string, unknown>; stringData?: Record<string, string> };

const MAAS = { MAAS_ENDPOINT: 'http://maas.example:5240/MAAS', MAAS_API_KEY: 'ck:tk:test-secret' };
const CLUSTER = {
  CLUSTER_NAME: 'c1', NAMESPACE: 'team-a', KUBERNETES_VERSION: 'v1.33.1', CONTROL_PLANE_MACHINE_COUNT: '3', WORKER_MACHINE_COUNT: '2',
  MAAS_DNS_DOMAIN: 'maas', CONTROL_PLANE_MACHINE_IMAGE: 'ubuntu/jammy', WORKER_MACHINE_IMAGE: 'ubuntu/noble',
};

function objects(text: string): Obj[] {
  return parseAllDocuments(text, { version: '1.1' }).map((d) => {
    if (d.errors.length > 0) throw new Error(d.errors[0]?.message);
    return d.toJS() as Obj;
  });
}

const files = releaseFiles();
const components = async () => objects(substitute((await files).get(COMPONENTS_FILE)!, MAAS, COMPONENTS_FILE));

test('clusterctl release - npm run release:clusterctl writes the provider folder out/release/infrastructure-metalfleet/v<version>/ with what releaseFiles builds', async (t) => {
  const { stdout } = await execFileAsync('npm', ['run', '-s', 'release:clusterctl'], { cwd: ROOT, timeout: 120_000 });
  const dir = await releaseDir();
  const version = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  t.is(dir, `out/release/infrastructure-metalfleet/v${version}`);
  const expected = await files;
  t.deepEqual((await readdir(join(ROOT, dir))).sort(), [...expected.keys()].sort());
  for (const [name, content] of expected) t.is(await readFile(join(ROOT, dir, name), 'utf8'), content, name);
  t.deepEqual([...expected.keys()].sort(), ['cluster-template-in-memory.yaml', 'cluster-template-worker-pools.yaml', 'cluster-template.yaml', 'infrastructure-components.yaml', 'metadata.yaml']);
  // The clusterctl.yaml entry that points at the folder.
  t.true(stdout.includes(`url: file://${join(ROOT, dir, COMPONENTS_FILE)}`), stdout);
  t.regex(stdout, /type: InfrastructureProvider/);
});

test('clusterctl release - every object of the components is labelled with the provider; every CRD with the contract, naming versions it serves', async (t) => {
  const all = await components();
  t.true(all.length >= 15, `${all.length} objects`);
  for (const o of all) t.is(o.metadata.labels?.['cluster.x-k8s.io/provider'], 'infrastructure-metalfleet', `${o.kind}/${o.metadata.name}`);
  const crds = all.filter((o) => o.kind === 'CustomResourceDefinition');
  t.deepEqual(crds.map((c) => c.metadata.name).sort(), ['maasclusters.infrastructure.cluster.x-k8s.io', 'maasmachines.infrastructure.cluster.x-k8s.io', 'maasmachinetemplates.infrastructure.cluster.x-k8s.io']);
  for (const crd of crds) {
    const served = (crd.spec!.versions as Array<{ name: string; served: boolean }>).filter((v) => v.served).map((v) => v.name);
    const label = crd.metadata.labels?.['cluster.x-k8s.io/v1beta1'];
    t.truthy(label, crd.metadata.name);
    for (const v of label!.split('_')) t.true(served.includes(v), `${crd.metadata.name}: ${v}`);
    // Cluster API finds the CRD by CalculateCRDName(group, kind): lower-case plural of the kind.
    const names = crd.spec!.names as { kind: string; plural: string };
    t.is(crd.metadata.name, `${names.plural}.${String(crd.spec!.group)}`);
    t.is(names.plural, `${names.kind.toLowerCase()}s`);
  }
});

test('clusterctl release - the components hold only the MAAS kinds: no metal3.io CRD, no grant on metal3.io, the manager runs --no-hosts without NATS', async (t) => {
  const all = await components();
  t.false(all.some((o) => o.kind === 'CustomResourceDefinition' && String(o.spec?.group) === 'metal3.io'));
  const role = all.find((o) => o.kind === 'ClusterRole') as unknown as { rules: Array<{ apiGroups: string[] }> };
  t.false(role.rules.some((r) => r.apiGroups.includes('metal3.io')));
  t.true(role.rules.some((r) => r.apiGroups.includes('coordination.k8s.io')), 'the leader Lease');
  const webhooks = all.filter((o) => o.kind.endsWith('WebhookConfiguration')) as unknown as Array<{ webhooks: Array<{ rules: Array<{ apiGroups: string[] }> }> }>;
  t.is(webhooks.length, 2);
  for (const w of webhooks) for (const h of w.webhooks) for (const r of h.rules) t.deepEqual(r.apiGroups, ['infrastructure.cluster.x-k8s.io']);
  const deployments = all.filter((o) => o.kind === 'Deployment');
  const manager = deployments.find((d) => d.metadata.name === 'metalfleet-controller-manager') as unknown as { spec: { replicas: number; template: { spec: { containers: Array<{ name: string; args: string[]; env: Array<{ name: string }> }> } } } };
  t.is(manager.spec.replicas, 1);
  const [container] = manager.spec.template.spec.containers;
  t.is(container?.name, 'manager', 'clusterctl: the controller\'s container is called manager');
  t.deepEqual(container?.args.slice(0, 3), ['node', '--in-cluster', '--no-hosts']);
  t.false(container!.args.some((a) => /nats|authorized-keys|ironic/.test(a)), container!.args.join(' '));
  t.deepEqual(container!.env.map((e) => e.name).sort(), ['MAAS_API_KEY', 'MAAS_ENDPOINT', 'METALFLEET_LOG_LEVEL', 'POD_NAME', 'POD_NAMESPACE']);
});

test('clusterctl release - one Namespace, every namespaced object in it; METALFLEET_NAMESPACE moves them all, the webhook\'s DNS names and CA injection too', async (t) => {
  const raw = (await files).get(COMPONENTS_FILE)!;
  const moved = objects(substitute(raw, { ...MAAS, METALFLEET_NAMESPACE: 'capi-maas' }, COMPONENTS_FILE));
  const namespaces = moved.filter((o) => o.kind === 'Namespace');
  t.deepEqual(namespaces.map((n) => n.metadata.name), ['capi-maas']);
  t.is(moved[0]?.kind, 'Namespace', 'first, so kubectl creates it before what goes in it');
  const text = JSON.stringify(moved);
  t.false(text.includes('metalfleet-system'), 'nothing left in the default namespace');
  t.true(text.includes('metalfleet-webhook.capi-maas.svc'));
  t.true(text.includes('capi-maas/metalfleet-webhook'));
  const byDefault = await components();
  for (const o of byDefault) {
    const clusterScoped = ['Namespace', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding', 'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'].includes(o.kind);
    t.is(o.metadata.namespace, clusterScoped ? undefined : 'metalfleet-system', `${o.kind}/${o.metadata.name}`);
  }
});

test('clusterctl release - no secret literal: the MAAS credentials are required variables, substituted into the Secret only', async (t) => {
  const raw = (await files).get(COMPONENTS_FILE)!;
  t.false(/REPLACE-ME/.test(raw));
  const vars = listVariables(raw, COMPONENTS_FILE);
  t.deepEqual(vars.filter((v) => v.required).map((v) => v.name), ['MAAS_API_KEY', 'MAAS_ENDPOINT']);
  t.deepEqual(vars.filter((v) => !v.required).map((v) => v.name), ['METALFLEET_IMAGE', 'METALFLEET_LOG_LEVEL', 'METALFLEET_NAMESPACE']);
  const secrets = objects(raw.replace(/\$\{[^}]*\}/g, 'X')).filter((o) => o.kind === 'Secret');
  t.is(secrets.length, 1);
  const [secret] = (await components()).filter((o) => o.kind === 'Secret');
  t.deepEqual(secret?.stringData, MAAS);
  const substituted = substitute(raw, MAAS, COMPONENTS_FILE);
  t.is(substituted.split(MAAS.MAAS_API_KEY).length - 1, 1, 'the key appears once: in the Secret');
});

test('clusterctl release - a missing variable fails, naming it and the file', async (t) => {
  const raw = (await files).get(COMPONENTS_FILE)!;
  const err = t.throws(() => substitute(raw, { MAAS_ENDPOINT: MAAS.MAAS_ENDPOINT }, COMPONENTS_FILE), { instanceOf: ClusterctlVariableError });
  t.deepEqual(err?.missing, ['MAAS_API_KEY']);
  t.regex(err?.message ?? '', /^infrastructure-components\.yaml: value for variables \[MAAS_API_KEY\] is not set/);
  const template = (await files).get('cluster-template.yaml')!;
  const { WORKER_MACHINE_IMAGE: _, ...withoutImage } = CLUSTER;
  t.throws(() => substitute(template, withoutImage, 'cluster-template.yaml'), { message: /^cluster-template\.yaml: value for variables \[WORKER_MACHINE_IMAGE\] is not set/ });
});

test('clusterctl release - metadata.yaml maps this release series to the contract every CRD declares', async (t) => {
  const meta = parse((await files).get('metadata.yaml')!) as { apiVersion: string; kind: string; releaseSeries: Array<{ major: number; minor: number; contract: string }> };
  const version = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version.split('.').map(Number);
  t.is(meta.apiVersion, 'clusterctl.cluster.x-k8s.io/v1alpha3');
  t.is(meta.kind, 'Metadata');
  t.deepEqual(meta.releaseSeries, [{ major: version[0], minor: version[1], contract: 'v1beta1' }]);
  for (const crd of (await components()).filter((o) => o.kind === 'CustomResourceDefinition')) t.truthy(crd.metadata.labels?.[`cluster.x-k8s.io/${meta.releaseSeries[0]!.contract}`]);
});

test('clusterctl release - the templates take clusterctl\'s common variables, and every object lands in NAMESPACE', async (t) => {
  for (const [name, text] of await files) {
    if (!name.startsWith('cluster-template')) continue;
    const vars = listVariables(text, name);
    const required = vars.filter((v) => v.required).map((v) => v.name);
    t.deepEqual(required, ['CLUSTER_NAME', 'CONTROL_PLANE_MACHINE_COUNT', 'CONTROL_PLANE_MACHINE_IMAGE', 'KUBERNETES_VERSION', 'MAAS_DNS_DOMAIN', 'NAMESPACE', 'WORKER_MACHINE_COUNT', 'WORKER_MACHINE_IMAGE'], name);
    for (const optional of ['CONTROL_PLANE_MACHINE_MINCPU', 'CONTROL_PLANE_MACHINE_MINMEMORY', 'CONTROL_PLANE_MACHINE_RESOURCEPOOL', 'WORKER_MACHINE_MINCPU', 'WORKER_MACHINE_MINMEMORY', 'WORKER_MACHINE_RESOURCEPOOL', 'POD_CIDR', 'SERVICE_CIDR']) {
      t.true(vars.some((v) => v.name === optional && !v.required), `${name}: ${optional}`);
    }
    const objs = objects(substitute(text, CLUSTER, name));
    for (const o of objs) t.is(o.metadata.namespace, 'team-a', `${name}: ${o.kind}/${o.metadata.name}`);
    const kinds = objs.map((o) => o.kind);
    t.deepEqual([...new Set(kinds)].sort(), ['Cluster', 'KubeadmConfigTemplate', 'KubeadmControlPlane', 'MaasCluster', 'MaasMachineTemplate', 'MachineDeployment'], name);
    // Counts are numbers after substitution, as the API server's schemas want them.
    const kcp = objs.find((o) => o.kind === 'KubeadmControlPlane')!;
    t.is(kcp.spec?.replicas, 3);
    const cpTemplate = objs.find((o) => o.kind === 'MaasMachineTemplate' && o.metadata.name === 'c1-control-plane')!;
    const cp = (cpTemplate.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    t.is(typeof cp.minCPU, 'number');
    t.is(cp.deployInMemory, name === 'cluster-template-in-memory.yaml' ? true : undefined, name);
    t.is(objs.filter((o) => o.kind === 'MachineDeployment').length, name === 'cluster-template-worker-pools.yaml' ? 2 : 1, name);
  }
});

test('clusterctl release - the worker-pools flavour\'s second pool has its own template, defaulting to the first pool\'s image', async (t) => {
  const text = (await files).get('cluster-template-worker-pools.yaml')!;
  const objs = objects(substitute(text, { ...CLUSTER, WORKER_POOL_1_MACHINE_COUNT: '4' }, 'cluster-template-worker-pools.yaml'));
  const md1 = objs.find((o) => o.kind === 'MachineDeployment' && o.metadata.name === 'c1-md-1')!;
  t.is(md1.spec?.replicas, 4);
  const tmpl = objs.find((o) => o.kind === 'MaasMachineTemplate' && o.metadata.name === 'c1-md-1')!;
  t.like((tmpl.spec as { template: { spec: object } }).template.spec, { image: 'ubuntu/noble', minCPU: 8, minMemory: 32768, resourcePool: 'default' });
  const withOwnImage = objects(substitute(text, { ...CLUSTER, WORKER_POOL_1_MACHINE_IMAGE: 'custom/gpu-2404' }, 'cluster-template-worker-pools.yaml'));
  t.like((withOwnImage.find((o) => o.kind === 'MaasMachineTemplate' && o.metadata.name === 'c1-md-1')!.spec as { template: { spec: object } }).template.spec, { image: 'custom/gpu-2404' });
});
