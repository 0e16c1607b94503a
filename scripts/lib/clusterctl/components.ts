// infrastructure-components.yaml: metalfleet's MAAS side as a Cluster API infrastructure provider,
// built from the same manifests as the kustomize base in deploy/ (the CRDs gen:crds writes, the
// ClusterRole from ADAPTER_PERMISSIONS, the webhook, the controller's pod) so they cannot drift.
//
// Only the infrastructure.cluster.x-k8s.io kinds ship here. The BareMetalHost kinds are Metal3's
// (BMO's) API: CAPMAAS ships only its own kinds, and Metal3 ships CAPM3 through clusterctl and BMO
// apart. A provider that installed metal3.io CRDs would overwrite a BMO's beside it, and its
// controller would drive that BMO's hosts; so the controller runs `node --no-hosts` and is granted
// nothing in metal3.io. NATS stays out too: one replica holding a coordination Lease (the node's
// Kubernetes mode) is how a Cluster API provider's manager runs.
//
// clusterctl's rules (Cluster API book, developer/providers/contracts/clusterctl.md): one
// Namespace; every object labelled cluster.x-k8s.io/provider; the controller a Deployment whose
// container is `manager` and which takes --namespace; variables for what differs per install.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Obj } from './yaml-objects.ts';
import { isObj, labelsOf, metadataOf, readManifest, readManifests, replaceStrings } from './yaml-objects.ts';

export const PROVIDER = 'infrastructure-metalfleet';
export const PROVIDER_LABEL = 'cluster.x-k8s.io/provider';
export const INFRASTRUCTURE_GROUP = 'infrastructure.cluster.x-k8s.io';
/** The Cluster API contract this release implements (metadata.yaml); every CRD must declare it. */
export const CONTRACT = 'v1beta1';
const DEPLOY_NAMESPACE = 'metalfleet-system';
export const NAMESPACE_VARIABLE = `\${METALFLEET_NAMESPACE:=${DEPLOY_NAMESPACE}}`;
// Cluster-scoped names of their own: a kustomize install of deploy/ (hosts) may sit beside this one.
const CLUSTER_ROLE = 'metalfleet-infrastructure-manager';
const WEBHOOK_CONFIGURATION = 'metalfleet-infrastructure';
const CONTROLLER = 'metalfleet-controller-manager';

/** The controller flags of deploy/'s StatefulSet that mean the same in a Deployment without NATS. */
const KEPT_FLAGS = new Set(['--name', '--shards', '--health-port', '--health-bind']);

async function kustomizationResources(root: string, dir: string): Promise<string[]> {
  const k = await readManifest(root, `${dir}/kustomization.yaml`);
  if (!Array.isArray(k.resources)) throw new Error(`${dir}/kustomization.yaml: no resources`);
  return k.resources.map((r) => `${dir}/${String(r)}`);
}

async function crds(root: string): Promise<Obj[]> {
  const names = (await readdir(join(root, 'deploy/crds'))).filter((n) => n.endsWith('.yaml')).sort();
  const out: Obj[] = [];
  for (const name of names) {
    const crd = await readManifest(root, `deploy/crds/${name}`);
    const spec = isObj(crd.spec) ? crd.spec : {};
    if (spec.group !== INFRASTRUCTURE_GROUP) continue;
    // The contract label names the served versions that implement the contract, joined by "_".
    const served = (Array.isArray(spec.versions) ? spec.versions : []).filter((v): v is Obj => isObj(v) && v.served === true).map((v) => String(v.name));
    const labels = labelsOf(crd);
    const declared = labels[`cluster.x-k8s.io/${CONTRACT}`];
    if (declared === undefined) throw new Error(`deploy/crds/${name}: no cluster.x-k8s.io/${CONTRACT} label; the CRD generator (src/api/crd) must declare the contract`);
    const unknown = declared.split('_').filter((v) => !served.includes(v));
    if (unknown.length > 0) throw new Error(`deploy/crds/${name}: cluster.x-k8s.io/${CONTRACT} names ${unknown.join(', ')}, which the CRD does not serve`);
    out.push(crd);
  }
  if (out.length === 0) throw new Error(`deploy/crds: no ${INFRASTRUCTURE_GROUP} CRD; run npm run gen:crds`);
  return out;
}

function maasSecret(secret: Obj): Obj {
  // The kustomize template's placeholders become variables clusterctl asks for: no literal secret.
  const data = isObj(secret.stringData) ? secret.stringData : {};
  return { ...secret, stringData: Object.fromEntries(Object.keys(data).map((k) => [k, `\${${k}}`])) };
}

function clusterRole(role: Obj): Obj {
  const rules = (Array.isArray(role.rules) ? role.rules : []).filter((r): r is Obj => isObj(r))
    .filter((r) => !(Array.isArray(r.apiGroups) && r.apiGroups.every((g) => g === 'metal3.io')));
  return { ...role, metadata: { ...metadataOf(role), name: CLUSTER_ROLE }, rules };
}

function clusterRoleBinding(binding: Obj): Obj {
  return { ...binding, metadata: { ...metadataOf(binding), name: CLUSTER_ROLE }, roleRef: { ...(binding.roleRef as Obj), name: CLUSTER_ROLE } };
}

function maasWebhooks(config: Obj): Obj {
  const webhooks = (Array.isArray(config.webhooks) ? config.webhooks : []).filter((w): w is Obj => isObj(w)).filter((w) =>
    Array.isArray(w.rules) && w.rules.some((r) => isObj(r) && Array.isArray(r.apiGroups) && r.apiGroups.includes(INFRASTRUCTURE_GROUP)));
  return { ...config, metadata: { ...metadataOf(config), name: WEBHOOK_CONFIGURATION }, webhooks };
}

/** The kustomize base's controller pod, as a one-replica Deployment of a MAAS-only node. */
function controllerDeployment(sts: Obj, image: string): Obj {
  const spec = sts.spec as Obj;
  const template = spec.template as Obj;
  const pod = template.spec as Obj;
  const [container] = pod.containers as Obj[];
  if (!container) throw new Error('deploy/controller/statefulset.yaml: no container');
  const args = (container.args as string[]).slice(1);
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]!;
    if (!flag.startsWith('--')) continue;
    const value = args[i + 1];
    const hasValue = value !== undefined && !value.startsWith('--');
    if (KEPT_FLAGS.has(flag)) kept.push(flag, ...(hasValue ? [value] : []));
    if (hasValue) i++;
  }
  const env = (container.env as Obj[]).filter((e) => e.name === 'POD_NAME' || e.name === 'MAAS_ENDPOINT' || e.name === 'MAAS_API_KEY')
    .map((e) => (e.name === 'POD_NAME' ? e : { name: e.name, valueFrom: { secretKeyRef: { ...((e.valueFrom as Obj).secretKeyRef as Obj), optional: false } } }));
  const manager: Obj = {
    ...container,
    // clusterctl's contract: the controller's container is called manager.
    name: 'manager',
    image,
    // No NATS: the node's Kubernetes mode, which elects a leader through a Lease in its namespace.
    args: ['node', '--in-cluster', '--no-hosts', ...kept, '--leader-election-namespace', '$(POD_NAMESPACE)'],
    env: [
      ...env,
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      { name: 'METALFLEET_LOG_LEVEL', value: '${METALFLEET_LOG_LEVEL:=info}' },
    ],
    volumeMounts: (container.volumeMounts as Obj[]).filter((m) => m.name === 'tmp'),
  };
  const labels = { ...(isObj(template.metadata) && isObj(template.metadata.labels) ? template.metadata.labels : {}) };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: CONTROLLER, namespace: DEPLOY_NAMESPACE, labels: { ...labelsOf(sts) } },
    spec: {
      // One leader drives every MaasMachine; a second replica would only stand by.
      replicas: 1,
      selector: spec.selector,
      template: {
        metadata: { ...(template.metadata as Obj), labels },
        spec: {
          ...pod,
          containers: [manager],
          volumes: (pod.volumes as Obj[]).filter((v) => v.name === 'tmp'),
        },
      },
    },
  };
}

function withImage(deployment: Obj, image: string): Obj {
  const template = (deployment.spec as Obj).template as Obj;
  const pod = template.spec as Obj;
  return { ...deployment, spec: { ...(deployment.spec as Obj), template: { ...template, spec: { ...pod, containers: (pod.containers as Obj[]).map((c) => ({ ...c, image })) } } } };
}

const CLUSTER_SCOPED = new Set(['Namespace', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding', 'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']);

/** Every object of infrastructure-components.yaml, in the order kubectl must create them. */
export async function components(root: string): Promise<Obj[]> {
  const sts = await readManifest(root, 'deploy/controller/statefulset.yaml');
  const stsImage = String(((((sts.spec as Obj).template as Obj).spec as Obj).containers as Obj[])[0]?.image ?? '');
  if (!stsImage) throw new Error('deploy/controller/statefulset.yaml: the controller has no image');
  const image = `\${METALFLEET_IMAGE:=${stsImage}}`;

  const webhookFiles = await kustomizationResources(root, 'deploy/webhook');
  const webhook: Obj[] = [];
  for (const file of webhookFiles) {
    for (const o of await readManifests(root, file)) {
      if (o.kind === 'ValidatingWebhookConfiguration' || o.kind === 'MutatingWebhookConfiguration') webhook.push(maasWebhooks(o));
      else if (o.kind === 'Deployment') webhook.push(withImage(o, image));
      else webhook.push(o);
    }
  }
  const rbac: Obj[] = [];
  for (const file of await kustomizationResources(root, 'deploy/rbac')) {
    for (const o of await readManifests(root, file)) {
      rbac.push(o.kind === 'ClusterRole' ? clusterRole(o) : o.kind === 'ClusterRoleBinding' ? clusterRoleBinding(o) : o);
    }
  }
  const objects: Obj[] = [
    await readManifest(root, 'deploy/namespace.yaml'),
    ...(await crds(root)),
    maasSecret(await readManifest(root, 'deploy/secrets/maas-credentials.yaml')),
    ...rbac,
    controllerDeployment(sts, image),
    ...webhook,
  ];
  return objects.map((o) => {
    // The install's namespace everywhere deploy/ names its own: object namespaces, the webhook's
    // Service DNS names, cert-manager's inject-ca-from, the binding's subject.
    const out = replaceStrings(o, DEPLOY_NAMESPACE, NAMESPACE_VARIABLE) as Obj;
    const meta = metadataOf(out);
    if (!CLUSTER_SCOPED.has(String(out.kind))) meta.namespace = NAMESPACE_VARIABLE;
    labelsOf(out)[PROVIDER_LABEL] = PROVIDER;
    return out;
  });
}
