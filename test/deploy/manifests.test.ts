import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { Command } from 'commander';
import { registerAll } from '../../src/cli/commands/index.ts';
import { parseAllDocuments } from 'yaml';
import { ADAPTER_PERMISSIONS } from '../../src/adapters/kube/permissions.ts';
import { customResourceDefinitions } from '../../src/api/crd/index.ts';
import { toolAvailable } from '../support/tools.ts';
import { CUSTOM_RESOURCES } from '../../src/machines/kinds.ts';
import { DEPLOY, REPO, filesUnder, loadKustomization } from './kustomize.ts';
import type { KubeObject, LoadedObject } from './kustomize.ts';
import { isObject } from './openapi.ts';

// deploy/ read as kustomize reads it (resources: and namespace:), and checked for what a cluster
// would otherwise only tell at apply or run time: names, namespaces, references between objects,
// probes, and the RBAC the adapter needs and no more.

const NAMESPACE = 'metalfleet-system';
const IMAGE = 'ghcr.io/metalfleet/metalfleet:0.1.0';
// Kinds whose objects have no namespace; every other kind used here is namespaced.
const CLUSTER_SCOPED = new Set(['Namespace', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding', 'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']);
// Each webhook configuration and the endpoint it must call.
const WEBHOOK_CONFIGURATIONS = [['ValidatingWebhookConfiguration', '/validate'], ['MutatingWebhookConfiguration', '/mutate']] as const;
const NAMESPACED = new Set(['ServiceAccount', 'Secret', 'ConfigMap', 'Service', 'StatefulSet', 'Deployment', 'PodDisruptionBudget', 'NetworkPolicy', 'Issuer', 'Certificate']);

type Json = Record<string, unknown>;
interface Container { name: string; image?: string; command?: string[]; args?: string[]; env?: Json[]; ports?: { name?: string; containerPort: number }[]; livenessProbe?: Json; readinessProbe?: Json; startupProbe?: Json; volumeMounts?: Json[]; securityContext?: Json }
interface PodSpec { serviceAccountName?: string; automountServiceAccountToken?: boolean; containers: Container[]; volumes?: Json[]; securityContext?: Json }
interface Workload { replicas?: number; serviceName?: string; selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> }; spec: PodSpec }; volumeClaimTemplates?: Json[] }

const loaded = loadKustomization();

async function objects(): Promise<LoadedObject[]> {
  return (await loaded).objects;
}

async function find(kind: string, name: string): Promise<KubeObject> {
  const found = (await objects()).find((o) => o.object.kind === kind && o.object.metadata?.name === name);
  if (!found) throw new Error(`deploy/ has no ${kind} ${name}`);
  return found.object;
}

function spec<T>(object: KubeObject): T {
  return object.spec as T;
}

/** The value after `flag` in `args` (`--port 9443` or `--port=9443`). */
function flag(args: readonly string[] | undefined, name: string): string | undefined {
  for (const [i, arg] of (args ?? []).entries()) {
    if (arg === name) return args?.[i + 1];
    if (arg.startsWith(`${name}=`)) return arg.slice(name.length + 1);
  }
  return undefined;
}

function containerPort(container: Container, port: unknown): number | undefined {
  if (typeof port === 'number') return container.ports?.some((p) => p.containerPort === port) ? port : undefined;
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

test('deploy - every YAML file under deploy/ is reached from kustomization.yaml', async (t) => {
  const { files } = await loaded;
  t.deepEqual([...new Set(files)].sort(), await filesUnder(DEPLOY, '.yaml'), 'a file no kustomization lists is never applied');
});

test('deploy - every object has apiVersion, kind and metadata.name, once', async (t) => {
  const seen = new Set<string>();
  for (const { source, object } of await objects()) {
    t.true(typeof object.apiVersion === 'string' && object.apiVersion !== '', `${source}: apiVersion`);
    t.true(typeof object.kind === 'string' && object.kind !== '', `${source}: kind`);
    t.true(typeof object.metadata?.name === 'string' && object.metadata.name !== '', `${source}: metadata.name`);
    const key = `${String(object.kind)}/${String(object.metadata?.namespace ?? '')}/${String(object.metadata?.name)}`;
    t.false(seen.has(key), `${source}: ${key} is defined twice`);
    seen.add(key);
  }
  t.true(seen.size >= 20);
});

test('deploy - namespaced objects land in metalfleet-system, cluster-scoped ones have no namespace', async (t) => {
  for (const { source, object, namespace } of await objects()) {
    const kind = String(object.kind);
    t.true(CLUSTER_SCOPED.has(kind) || NAMESPACED.has(kind), `${source}: ${kind} is neither known cluster-scoped nor namespaced; add it to this test`);
    if (NAMESPACED.has(kind)) {
      t.is(namespace, NAMESPACE, `${source}: ${kind} ${String(object.metadata?.name)}`);
      // Written out too, so `kubectl apply -f` on one file lands in the same place as `-k`.
      t.is(object.metadata?.namespace, NAMESPACE, `${source}: metadata.namespace`);
    } else {
      t.is(object.metadata?.namespace, undefined, `${source}: a ${kind} has no namespace`);
    }
  }
  const ns = await find('Namespace', NAMESPACE);
  t.is(ns.metadata?.labels?.['pod-security.kubernetes.io/enforce'], 'restricted');
});

test('deploy - the CRDs are the generated ones', async (t) => {
  const crds = (await objects()).filter((o) => o.object.kind === 'CustomResourceDefinition').map((o) => o.object);
  t.deepEqual(crds, customResourceDefinitions(CUSTOM_RESOURCES) as unknown as KubeObject[], 'deploy/crds is out of date: run `npm run gen:crds`');
});

function grants(rules: readonly { apiGroups: string[]; resources: string[]; verbs: string[] }[]): string[] {
  return [...new Set(rules.flatMap((r) => r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${g}|${res}|${v}`)))))].sort();
}

test('deploy - the controller\'s ClusterRole grants exactly ADAPTER_PERMISSIONS', async (t) => {
  const role = await find('ClusterRole', 'metalfleet-controller');
  const rules = role.rules as { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[]; nonResourceURLs?: string[] }[];
  for (const rule of rules) {
    t.is(rule.nonResourceURLs, undefined);
    t.false([...rule.apiGroups, ...rule.resources, ...rule.verbs].includes('*'), 'no wildcard');
  }
  const wanted = grants(ADAPTER_PERMISSIONS.map((p) => ({ apiGroups: [p.apiGroup], resources: [p.resource], verbs: [...p.verbs] })));
  t.deepEqual(grants(rules), wanted, 'deploy/rbac/cluster-role.yaml and ADAPTER_PERMISSIONS differ: run `npm run gen:crds`');
  // The only roles in deploy/ are the controller's.
  t.deepEqual((await objects()).filter((o) => o.object.kind === 'ClusterRole' || o.object.kind === 'Role').map((o) => o.object.metadata?.name), ['metalfleet-controller']);
});

test('deploy - on BMO\'s companion kinds the controller has BMO\'s manager-role verbs, on what the CRDs serve', async (t) => {
  const role = await find('ClusterRole', 'metalfleet-controller');
  const ours = grants(role.rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[]);
  const upstream = parseAllDocuments(readFileSync(join(REPO, 'test/deploy/upstream/bmo/config/rbac/role.yaml'), 'utf8')).map((d) => d.toJS() as KubeObject)[0];
  const companions = /^(hardwaredata|firmwareschemas|hostfirmwaresettings|hostfirmwarecomponents|hostupdatepolicies)(\/|\|)/;
  const bmo = grants(upstream?.rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[])
    .filter((g) => g.startsWith('metal3.io|') && companions.test(g.slice('metal3.io|'.length)))
    // BMO grants a status on FirmwareSchema, whose CRD has no status subresource.
    .filter((g) => !g.startsWith('metal3.io|firmwareschemas/status|'));
  t.true(bmo.length > 30, 'BMO\'s role names the companion kinds');
  t.deepEqual(ours.filter((g) => g.startsWith('metal3.io|') && companions.test(g.slice('metal3.io|'.length))), bmo);
});

test('deploy - the ClusterRoleBinding gives the role to the controller\'s ServiceAccount, which the StatefulSet runs as', async (t) => {
  const binding = await find('ClusterRoleBinding', 'metalfleet-controller');
  t.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'metalfleet-controller' });
  t.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'metalfleet-controller', namespace: NAMESPACE }]);
  await find('ServiceAccount', 'metalfleet-controller');
  t.is(spec<Workload>(await find('StatefulSet', 'metalfleet-controller')).template.spec.serviceAccountName, 'metalfleet-controller');
  // Nothing else may talk to the API server.
  for (const name of ['nats', 'metalfleet-webhook']) {
    const sa = await find('ServiceAccount', name);
    t.is(sa.automountServiceAccountToken, false, name);
  }
});

test('deploy - the controller: a StatefulSet of 3 nodes, named by their pods, probed on the health port', async (t) => {
  const sts = spec<Workload>(await find('StatefulSet', 'metalfleet-controller'));
  t.is(sts.replicas, 3);
  t.true(selects(sts.selector.matchLabels, sts.template.metadata.labels));
  const governing = await find('Service', sts.serviceName ?? '');
  t.is(spec<Json>(governing).clusterIP, 'None');
  const [c] = sts.template.spec.containers;
  if (!c) throw new Error('no container');
  t.is(c.image, IMAGE);
  t.deepEqual([...(c.command ?? []), ...(c.args ?? []).slice(0, 2)], ['metalfleet', 'node', '--in-cluster']);
  t.is(flag(c.args, '--name'), '$(POD_NAME)');
  t.deepEqual(c.env?.find((e) => e.name === 'POD_NAME')?.valueFrom, { fieldRef: { fieldPath: 'metadata.name' } });
  t.is(flag(c.args, '--replicas'), '3', 'KV buckets replicated on the three NATS servers');
  t.regex(flag(c.args, '--shards') ?? '', /^[1-9]\d*$/);
  const health = Number(flag(c.args, '--health-port'));
  t.true(health > 0);
  t.is(containerPort(c, (c.livenessProbe?.httpGet as Json | undefined)?.port), health);
  t.is((c.livenessProbe?.httpGet as Json | undefined)?.path, '/healthz');
  t.is(containerPort(c, (c.readinessProbe?.httpGet as Json | undefined)?.port), health);
  t.is((c.readinessProbe?.httpGet as Json | undefined)?.path, '/readyz');
  t.is(containerPort(c, (c.startupProbe?.httpGet as Json | undefined)?.port), health);
});

test('deploy - NATS: a 3-node JetStream cluster on file storage, and the controller connects to each node', async (t) => {
  const sts = spec<Workload>(await find('StatefulSet', 'nats'));
  t.is(sts.replicas, 3);
  const headless = spec<{ clusterIP: string; publishNotReadyAddresses: boolean; selector: Record<string, string>; ports: { port: number }[] }>(await find('Service', sts.serviceName ?? ''));
  t.is(headless.clusterIP, 'None');
  t.true(headless.publishNotReadyAddresses);
  t.true(selects(headless.selector, sts.template.metadata.labels));
  t.deepEqual(headless.ports.map((p) => p.port).sort(), [4222, 6222, 8222]);
  const [c] = sts.template.spec.containers;
  // Clustered lease CAS and sync_interval are sound only from 2.12.4 (reference/toolchain.md).
  const [major, minor, patch] = (/:(\d+)\.(\d+)\.(\d+)/.exec(c?.image ?? '') ?? []).slice(1).map(Number);
  t.true((major ?? 0) > 2 || (major === 2 && ((minor ?? 0) > 12 || (minor === 12 && (patch ?? 0) >= 4))), `nats image ${c?.image ?? '?'} must be >= 2.12.4`);
  t.true(sts.volumeClaimTemplates?.some((v) => (v.metadata as Json).name === 'data'));
  t.true(c?.volumeMounts?.some((m) => m.name === 'data' && m.mountPath === '/data'));
  const config = String(((await find('ConfigMap', 'nats-config')).data as Json)['nats.conf']);
  // Every variable the config reads is in the server's environment; the passwords reach it
  // quoted, so any password parses as a string.
  // (Outside quoted strings, where "$KV.>" is a subject, and comments; the permission blocks
  // NODE, OPERATOR and VIEWER are the config's own variables.)
  const unquoted = config.replace(/"[^"\n]*"/g, '').replace(/#.*$/gm, '');
  const variables = [...new Set([...unquoted.matchAll(/\$([A-Z][A-Z0-9_]*)/g)].map((m) => m[1] ?? ''))].filter((v) => !/^(NODE|OPERATOR|VIEWER)$/.test(v));
  t.deepEqual(variables.sort(), ['NATS_NODE_PASSWORD', 'NATS_OPERATOR_PASSWORD', 'NATS_VIEWER_PASSWORD', 'SERVER_NAME']);
  t.deepEqual(c?.env?.find((e) => e.name === 'SERVER_NAME')?.valueFrom, { fieldRef: { fieldPath: 'metadata.name' } });
  for (const name of variables.filter((v) => v.endsWith('_PASSWORD'))) {
    const value = String(c?.env?.find((e) => e.name === name)?.value);
    const inner = /^"\$\((\w+)\)"$/.exec(value)?.[1];
    t.truthy(inner, `${name} is "$(VAR)", got ${value}`);
    const index = c?.env?.findIndex((e) => e.name === inner) ?? -1;
    t.true(index >= 0 && index < (c?.env?.findIndex((e) => e.name === name) ?? -1), `${inner} is defined before ${name}`);
    // Each user's password from that user's own Secret (NATS_NODE_PASSWORD: metalfleet-nats-node).
    const user = /^NATS_(\w+)_PASSWORD$/.exec(name)?.[1]?.toLowerCase() ?? '?';
    t.deepEqual((c?.env?.[index]?.valueFrom as Json | undefined)?.secretKeyRef, { name: `metalfleet-nats-${user}`, key: 'password' });
  }
  t.regex(config, /jetstream \{[^}]*store_dir: \/data\n/, 'JetStream on the volume');
  t.regex(config, /sync_interval: always/);
  const routes = [...config.matchAll(/nats:\/\/([\w.-]+):6222/g)].map((m) => m[1]);
  const pods = [0, 1, 2].map((i) => `nats-${i}.${sts.serviceName ?? ''}.${NAMESPACE}.svc`);
  t.deepEqual(routes, pods, 'one route per server, through the headless Service');
  const controller = spec<Workload>(await find('StatefulSet', 'metalfleet-controller')).template.spec.containers[0];
  t.deepEqual(flag(controller?.args, '--nats')?.split(','), pods.map((p) => `nats://${p}:4222`));
});

test('deploy - credentials and settings come from Secrets and ConfigMaps in deploy/, key for key', async (t) => {
  const all = await objects();
  const keysOf = (kind: string, name: string): string[] | undefined => {
    const o = all.find((x) => x.object.kind === kind && x.object.metadata?.name === name)?.object;
    return o ? Object.keys({ ...(o.data as Json | undefined), ...(o.stringData as Json | undefined) }) : undefined;
  };
  const certificates = all.filter((o) => o.object.kind === 'Certificate').map((o) => String((o.object.spec as Json).secretName));
  for (const { source, object } of all) {
    const pod = (object.spec as Workload | undefined)?.template?.spec;
    if (!pod) continue;
    for (const c of pod.containers) {
      for (const env of c.env ?? []) {
        const from = env.valueFrom as Json | undefined;
        const ref = (from?.secretKeyRef ?? from?.configMapKeyRef) as { name: string; key: string } | undefined;
        if (!ref) continue;
        const kind = from?.secretKeyRef ? 'Secret' : 'ConfigMap';
        t.true(keysOf(kind, ref.name)?.includes(ref.key), `${source}: ${String(env.name)} reads key ${ref.key} of ${kind} ${ref.name}`);
      }
    }
    for (const volume of pod.volumes ?? []) {
      const secret = (volume.secret as Json | undefined)?.secretName;
      if (secret !== undefined) t.true(certificates.includes(String(secret)) || keysOf('Secret', String(secret)) !== undefined, `${source}: volume Secret ${String(secret)}`);
      const cm = (volume.configMap as Json | undefined)?.name;
      if (cm !== undefined) t.truthy(keysOf('ConfigMap', String(cm)), `${source}: volume ConfigMap ${String(cm)}`);
    }
  }
  // The Secrets are templates: placeholders and a comment saying so, never a real credential.
  for (const { source, object } of all.filter((o) => o.object.kind === 'Secret')) {
    t.true(Object.values(object.stringData as Json).some((v) => String(v).includes('REPLACE-ME')), `${source}: placeholder values`);
    t.is(object.data, undefined, `${source}: stringData only`);
  }
  for (const file of await filesUnder(join(DEPLOY, 'secrets'), '.yaml')) {
    if (file.endsWith('kustomization.yaml')) continue;
    t.regex(readFileSync(join(REPO, file), 'utf8'), /^# TEMPLATE: replace the placeholder/, `${file} says it is a template`);
  }
});

test('deploy - the webhook Deployment: 2 replicas serving the cert-manager certificate on --port', async (t) => {
  const dep = spec<Workload>(await find('Deployment', 'metalfleet-webhook'));
  t.is(dep.replicas, 2);
  const [c] = dep.template.spec.containers;
  if (!c) throw new Error('no container');
  t.is(c.image, IMAGE);
  t.deepEqual([...(c.command ?? []), ...(c.args ?? [])], ['metalfleet', 'webhook', '--port', '9443', '--tls-cert', '/certs/tls.crt', '--tls-key', '/certs/tls.key']);
  const mount = c.volumeMounts?.find((m) => m.mountPath === '/certs');
  const volume = dep.template.spec.volumes?.find((v) => v.name === mount?.name);
  const certificate = spec<{ secretName: string; dnsNames: string[]; issuerRef: { kind: string; name: string } }>(await find('Certificate', 'metalfleet-webhook'));
  t.is((volume?.secret as Json | undefined)?.secretName, 'metalfleet-webhook-tls');
  t.is(certificate.secretName, 'metalfleet-webhook-tls');
  t.true(certificate.dnsNames.includes(`metalfleet-webhook.${NAMESPACE}.svc`));
  t.like(spec<Json>(await find(certificate.issuerRef.kind, certificate.issuerRef.name)), { selfSigned: {} });
  t.is(containerPort(c, (c.readinessProbe?.httpGet as Json | undefined)?.port), 9443);
});

test('deploy - both webhook configurations reach the webhook Service, and through it the Deployment\'s port', async (t) => {
  for (const [kind, path] of WEBHOOK_CONFIGURATIONS) {
    const vwc = await find(kind, 'metalfleet');
    t.is(vwc.metadata?.annotations?.['cert-manager.io/inject-ca-from'], `${NAMESPACE}/metalfleet-webhook`);
    await find('Certificate', 'metalfleet-webhook');
    const webhooks = vwc.webhooks as { name: string; clientConfig: { service: { name: string; namespace: string; path: string; port?: number } } }[];
    t.true(webhooks.length > 0);
    const dep = spec<Workload>(await find('Deployment', 'metalfleet-webhook'));
    const [c] = dep.template.spec.containers;
    for (const webhook of webhooks) {
      const ref = webhook.clientConfig.service;
      t.is(ref.path, path, webhook.name);
      t.is(ref.namespace, NAMESPACE, webhook.name);
      const service = spec<{ selector: Record<string, string>; ports: { port: number; targetPort: number | string }[] }>(await find('Service', ref.name));
      t.true(service.selector !== undefined && selects(service.selector, dep.template.metadata.labels), `${ref.name} selects the webhook pods`);
      const port = service.ports.find((p) => p.port === (ref.port ?? 443));
      t.truthy(port, `${webhook.name}: Service ${ref.name} has port ${ref.port ?? 443}`);
      t.is(ref.port ?? 443, 443);
      t.is(c ? containerPort(c, port?.targetPort) : undefined, Number(flag(c?.args, '--port')), `${webhook.name}: the Service's targetPort is the port the webhook listens on`);
    }
  }
});

test('deploy - the webhooks validate and default CREATE and UPDATE of every CRD, failing closed', async (t) => {
  for (const [kind] of WEBHOOK_CONFIGURATIONS) {
    const vwc = await find(kind, 'metalfleet');
    const webhooks = vwc.webhooks as { failurePolicy: string; sideEffects: string; admissionReviewVersions: string[]; rules: { apiGroups: string[]; apiVersions: string[]; operations: string[]; resources: string[] }[] }[];
    const covered: string[] = [];
    for (const webhook of webhooks) {
      t.like(webhook, { failurePolicy: 'Fail', sideEffects: 'None' });
      t.deepEqual(webhook.admissionReviewVersions, ['v1']);
      for (const rule of webhook.rules) {
        t.deepEqual([...rule.operations].sort(), ['CREATE', 'UPDATE']);
        for (const g of rule.apiGroups) for (const v of rule.apiVersions) for (const r of rule.resources) covered.push(`${g}/${v}/${r}`);
      }
    }
    const crds = customResourceDefinitions(CUSTOM_RESOURCES).map((c) => `${c.spec.group}/${c.spec.versions[0]?.name ?? ''}/${c.spec.names.plural}`);
    t.deepEqual(covered.sort(), crds.sort(), `${kind}: the main resources of every CRD, and no subresource (status writes do not wait on the webhook)`);
  }
});

test('deploy - every pod meets the restricted Pod Security Standard the namespace enforces', async (t) => {
  for (const { source, object } of await objects()) {
    const pod = (object.spec as Workload | undefined)?.template?.spec;
    if (!pod) continue;
    for (const c of pod.containers) {
      const sc = { ...pod.securityContext, ...c.securityContext };
      t.is(sc.runAsNonRoot, true, `${source} ${c.name}: runAsNonRoot`);
      t.is(sc.allowPrivilegeEscalation, false, `${source} ${c.name}: allowPrivilegeEscalation`);
      t.deepEqual((sc.capabilities as Json | undefined)?.drop, ['ALL'], `${source} ${c.name}: capabilities`);
      t.is((sc.seccompProfile as Json | undefined)?.type, 'RuntimeDefault', `${source} ${c.name}: seccompProfile`);
    }
  }
});

const execFileAsync = promisify(execFile);
// kubectl builds kustomizations offline; outside CI a machine without it skips the test (named by
// `npm test`), under CI its absence fails it.
(toolAvailable('kubectl') ? test : test.skip)('deploy - kubectl kustomize builds the base into exactly the objects these tests read', async (t) => {
  const { stdout } = await execFileAsync('kubectl', ['kustomize', DEPLOY], { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 });
  const key = (o: KubeObject): string => `${String(o.kind)}/${String(o.metadata?.namespace ?? '')}/${String(o.metadata?.name)}`;
  const byKey = (a: KubeObject, b: KubeObject): number => key(a).localeCompare(key(b));
  const built = parseAllDocuments(stdout).map((d) => d.toJS() as KubeObject).filter(isObject).sort(byKey);
  // Every namespace is written out and no transformer is configured, so kustomize changes
  // nothing: what is checked above, the CRDs included, is what gets applied.
  t.deepEqual(built, (await objects()).map((o) => o.object).sort(byKey));
});

test('deploy - every flag the manifests pass is one the metalfleet command takes', async (t) => {
  const program = new Command('metalfleet');
  await registerAll(program);
  for (const [kind, name] of [['StatefulSet', 'metalfleet-controller'], ['Deployment', 'metalfleet-webhook']] as const) {
    const [c] = spec<Workload>(await find(kind, name)).template.spec.containers;
    const [sub, ...args] = c?.args ?? [];
    const command = program.commands.find((cmd) => cmd.name() === sub);
    t.truthy(command, `${name}: metalfleet ${sub ?? ''} exists`);
    const known = new Set(command?.options.map((o) => o.long) ?? []);
    for (const arg of args.filter((a) => a.startsWith('--'))) t.true(known.has(arg.split('=')[0]), `${name}: metalfleet ${sub} takes ${arg}`);
  }
});
