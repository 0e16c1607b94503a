// What `clusterctl init` installs before an infrastructure provider, as far as the Kubernetes API
// test server needs it: the CRDs of Cluster API core (Cluster, Machine, MachineDeployment), its
// kubeadm bootstrap and control plane (KubeadmConfig, KubeadmConfigTemplate,
// KubeadmControlPlane), and cert-manager's Issuer and Certificate. Written here, minimal: the
// served version and names of each, a status subresource, and bodies kept as given (metalfleet
// reads only a few fields of Cluster and Machine; the rest is what a template writes).
import { stringify } from 'yaml';

interface Kind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly shortNames?: readonly string[];
}

export const CLUSTERCTL_INIT_KINDS: readonly Kind[] = [
  { group: 'cluster.x-k8s.io', version: 'v1beta1', kind: 'Cluster', plural: 'clusters', shortNames: ['cl'] },
  { group: 'cluster.x-k8s.io', version: 'v1beta1', kind: 'Machine', plural: 'machines', shortNames: ['ma'] },
  { group: 'cluster.x-k8s.io', version: 'v1beta1', kind: 'MachineDeployment', plural: 'machinedeployments', shortNames: ['md'] },
  { group: 'controlplane.cluster.x-k8s.io', version: 'v1beta1', kind: 'KubeadmControlPlane', plural: 'kubeadmcontrolplanes', shortNames: ['kcp'] },
  { group: 'bootstrap.cluster.x-k8s.io', version: 'v1beta1', kind: 'KubeadmConfig', plural: 'kubeadmconfigs' },
  { group: 'bootstrap.cluster.x-k8s.io', version: 'v1beta1', kind: 'KubeadmConfigTemplate', plural: 'kubeadmconfigtemplates' },
  { group: 'cert-manager.io', version: 'v1', kind: 'Issuer', plural: 'issuers' },
  { group: 'cert-manager.io', version: 'v1', kind: 'Certificate', plural: 'certificates', shortNames: ['cert', 'certs'] },
];

const anyObject = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

function crd(k: Kind): object {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${k.plural}.${k.group}` },
    spec: {
      group: k.group,
      names: { kind: k.kind, listKind: `${k.kind}List`, plural: k.plural, singular: k.kind.toLowerCase(), ...(k.shortNames ? { shortNames: k.shortNames } : {}) },
      scope: 'Namespaced',
      versions: [{
        name: k.version, served: true, storage: true, subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec: anyObject, status: anyObject } } },
      }],
    },
  };
}

/** The CRDs as one YAML stream for `kubectl apply -f`. */
export function clusterctlInitCrdsYaml(): string {
  return CLUSTERCTL_INIT_KINDS.map((k) => stringify(crd(k))).join('---\n');
}
