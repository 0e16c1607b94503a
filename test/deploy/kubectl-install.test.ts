// deploy/ installed as a user installs it, with the real kubectl 1.32 against the Kubernetes API
// test server in strict namespaces mode: `kubectl apply -k deploy/` (what deploy/kustomization.yaml
// says), client-side then server-side, `kubectl diff` after each, and a second apply that must
// change nothing. A missing kubectl is a failure, never a skip.
//
// One thing stands in for what a real cluster has: cert-manager's Issuer and Certificate CRDs
// (deploy/kustomization.yaml: "cert-manager must be installed first") as small stand-ins that
// keep any spec. Everything deploy/ renders, the NetworkPolicy included, is applied.
import { join } from 'node:path';
import test from 'ava';
import { parseAllDocuments, stringify } from 'yaml';
import { DEPLOY_CRDS, hostYaml, withKubectl } from '../kube-api/kubectl-support.ts';
import type { Kubectl } from '../kube-api/kubectl-support.ts';
import { DEPLOY, REPO } from './kustomize.ts';

const certManagerCrd = (kind: string, plural: string): string => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ${plural}.cert-manager.io}
spec:
  group: cert-manager.io
  names: {kind: ${kind}, listKind: ${kind}List, plural: ${plural}, singular: ${kind.toLowerCase()}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
          status: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;
const CERT_MANAGER = `${certManagerCrd('Issuer', 'issuers')}---\n${certManagerCrd('Certificate', 'certificates')}`;

interface Obj { kind: string; metadata: { name: string; namespace?: string; generation?: number; resourceVersion: string } }

/** `kubectl kustomize deploy/`, as one file. */
async function renderedBase(k: Kubectl): Promise<{ file: string; objects: Obj[] }> {
  const objects = parseAllDocuments(await k.ok('kustomize', DEPLOY)).map((d) => d.toJS() as Obj);
  return { file: await k.file('deploy.yaml', objects.map((o) => stringify(o)).join('---\n')), objects };
}

/** kind/namespace/name → generation and resourceVersion, as `kubectl get` reads them back. */
async function versions(k: Kubectl, file: string): Promise<Map<string, string>> {
  const list = JSON.parse(await k.ok('get', '-f', file, '-o', 'json')) as { items: Obj[] };
  return new Map(list.items.map((o) => [`${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`, `generation=${String(o.metadata.generation)} rv=${o.metadata.resourceVersion}`]));
}

test('kubectl install - `kubectl apply -k deploy/` in a cluster with cert-manager: every object is taken, with no warning', async (t) => {
  const k = await withKubectl(t);
  await k.ok('apply', '-f', await k.file('cert-manager.yaml', CERT_MANAGER));
  const r = await k.run('apply', '-k', DEPLOY);
  t.is(r.code, 0, r.stderr);
  t.is(r.stderr, '');
  const { objects } = await renderedBase(k);
  t.true(objects.some((o) => o.kind === 'NetworkPolicy'), 'deploy/ holds the NetworkPolicy');
  const created = r.stdout.trim().split('\n');
  t.is(created.length, objects.length, r.stdout);
  t.true(created.every((l) => l.endsWith(' created')), r.stdout);
  t.is(created[0], 'namespace/metalfleet-system created', 'the namespace comes before anything in it');
  t.true(created.includes('networkpolicy.networking.k8s.io/nats created'), r.stdout);
});

test('kubectl install - client-side apply: kubectl diff is empty and a second apply changes nothing', async (t) => {
  const k = await withKubectl(t);
  await k.ok('apply', '-f', await k.file('cert-manager.yaml', CERT_MANAGER));
  const { file, objects } = await renderedBase(k);
  const first = await k.run('apply', '-f', file);
  t.is(first.code, 0, first.stderr);
  t.is(first.stderr, '');
  t.is(first.stdout.trim().split('\n').filter((l) => l.endsWith(' created')).length, objects.length);
  const before = await versions(k, file);
  t.is(before.size, objects.length);

  const diff = await k.run('diff', '-f', file);
  t.is(diff.code, 0, diff.stdout + diff.stderr);
  t.is(diff.stdout, '');

  const second = await k.run('apply', '-f', file);
  t.is(second.code, 0, second.stderr);
  t.is(second.stderr, '');
  // kubectl itself always sends a patch for these, which the server finds a no-op: a Secret's
  // stringData is never stored (so the three-way merge always re-adds it) and a PDB's selector has
  // patchStrategy replace (strategicpatch puts a replaced field in every patch).
  const configured = second.stdout.trim().split('\n').filter((l) => !l.endsWith(' unchanged'));
  t.true(configured.every((l) => /^(secret|poddisruptionbudget\.policy)\/\S+ configured$/.test(l)), second.stdout);
  t.deepEqual(await versions(k, file), before);
});

test('kubectl install - server-side apply after client-side: no conflict, and a second one changes nothing', async (t) => {
  const k = await withKubectl(t);
  await k.ok('apply', '-f', await k.file('cert-manager.yaml', CERT_MANAGER));
  const { file, objects } = await renderedBase(k);
  await k.ok('apply', '-f', file);
  const ssa = await k.run('apply', '--server-side', '-f', file);
  t.is(ssa.code, 0, ssa.stderr);
  t.is(ssa.stdout.trim().split('\n').filter((l) => l.endsWith(' serverside-applied')).length, objects.length);
  const before = await versions(k, file);

  const again = await k.run('apply', '--server-side', '-f', file);
  t.is(again.code, 0, again.stderr);
  const after = await versions(k, file);
  // Every object, CRDs (status kept) and Secrets (stringData folded into data) included, keeps its
  // generation and resourceVersion.
  t.is(after.size, objects.length);
  t.deepEqual(after, before);
  t.true([...after.keys()].some((key) => key.startsWith('CustomResourceDefinition/')));
  t.true([...after.keys()].some((key) => key.startsWith('Secret/')));
  t.true(after.has('NetworkPolicy/metalfleet-system/nats'));

  for (const args of [['diff', '--server-side', '-f', file], ['diff', '-f', file]]) {
    const diff = await k.run(...args);
    t.is(diff.code, 0, `kubectl ${args.join(' ')}: ${diff.stdout}${diff.stderr}`);
    t.is(diff.stdout, '');
  }
  // Back to client-side apply: nothing changes either.
  await k.ok('apply', '-f', file);
  t.deepEqual(await versions(k, file), after);
});

test('kubectl install - kubectl explain describes every field of spec and status of each CRD', async (t) => {
  const k = await withKubectl(t, { crdDir: DEPLOY_CRDS });
  const resources = (await k.ok('api-resources', '--api-group=metal3.io', '-o', 'name')).trim().split('\n')
    .concat((await k.ok('api-resources', '--api-group=infrastructure.cluster.x-k8s.io', '-o', 'name')).trim().split('\n'));
  t.is(resources.length, 9);
  for (const resource of resources) {
    const plural = resource.split('.')[0] ?? resource;
    const top = await k.ok('explain', plural);
    t.notRegex(top, /DESCRIPTION:\n\s*<empty>/, plural);
    for (const field of ['spec', 'status']) {
      if (!new RegExp(`^  ${field}\\t`, 'm').test(top)) continue;
      const out = await k.ok('explain', `${plural}.${field}`);
      t.notRegex(out, /DESCRIPTION:\n\s*<empty>/, `${plural}.${field}`);
      // In FIELDS, each `  name\t<type>` line is followed by its description, indented 4 (after
      // an `  enum: …` line for an enum).
      const lines = out.split('\n').filter((l) => !l.startsWith('  enum: '));
      const bare = lines.flatMap((l, i) => (/^ {2}\S+\t</.test(l) && !/^ {4}\S/.test(lines[i + 1] ?? '') ? [l.trim()] : []));
      t.deepEqual(bare, [], `${plural}.${field}: fields without a description`);
    }
  }
});

test('kubectl install - `kubectl apply -f deploy/crds` upgrades the CRDs of commit 0cf3ca3 with objects stored', async (t) => {
  const k = await withKubectl(t);
  const old = join(REPO, 'test/deploy/kubectl-upgrade-from-0cf3ca3');
  // The older HardwareData schema kept unknown fields and took any number for a NIC's speed.
  await k.ok('apply', '-f', DEPLOY_CRDS);
  await k.ok('apply', '-f', old);
  await k.ok('create', 'namespace', 'site-a');
  await k.ok('apply', '-f', await k.file('objects.yaml', `${hostYaml('h1', 'site-a', '  online: true\n')}---
apiVersion: metal3.io/v1alpha1
kind: HardwareData
metadata: {name: h1, namespace: site-a}
spec:
  hardware:
    hostname: h1
    cpu: {arch: x86_64, count: 8, clockMegahertz: 2400.5, vendorExtra: 1}
    firmware: {bios: {vendor: v, version: "1", date: d}, other: x}
    nics:
    - {name: eth0, mac: "aa:bb:cc:dd:ee:ff", ip: 10.0.0.1, speedGbps: 2.5}
    - {name: eth1, mac: "aa:bb:cc:dd:ee:f0", speedGbps: 10}
    ramMebibytes: 4096
    storage:
    - {name: /dev/sda, sizeBytes: 1000000, rotational: true}
`));

  const upgrade = await k.run('apply', '-f', DEPLOY_CRDS);
  t.is(upgrade.code, 0, upgrade.stderr);
  t.regex(upgrade.stdout, /customresourcedefinition\.apiextensions\.k8s\.io\/hardwaredata\.metal3\.io configured/);
  t.regex(upgrade.stdout, /customresourcedefinition\.apiextensions\.k8s\.io\/baremetalhosts\.metal3\.io configured/);
  // The stored objects are still served, and a metadata change to them is taken.
  t.regex(await k.ok('get', 'hd,bmh', '-n', 'site-a', '-o', 'name'), /hardwaredata\.metal3\.io\/h1\nbaremetalhost\.metal3\.io\/h1/);
  await k.ok('label', 'hd/h1', '-n', 'site-a', 'checked=yes');
  await k.ok('label', 'bmh/h1', '-n', 'site-a', 'checked=yes');
  // The CRDs are now the committed ones: applying them again changes nothing, diff is empty.
  t.true((await k.ok('apply', '-f', DEPLOY_CRDS)).trim().split('\n').every((l) => l.endsWith(' unchanged')));
  const diff = await k.run('diff', '-f', DEPLOY_CRDS);
  t.is(diff.code, 0, diff.stdout + diff.stderr);
});
