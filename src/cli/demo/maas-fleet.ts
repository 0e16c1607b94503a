import { CLUSTER_LABEL, CONTROL_PLANE_LABEL } from '../../api/index.ts';

const INFRA = 'infrastructure.cluster.x-k8s.io/v1beta1';
const CAPI = 'cluster.x-k8s.io/v1beta1';

// A Cluster API cluster on MAAS as clusterctl would create it: Cluster, MaasCluster, and per
// machine a CAPI Machine, its bootstrap Secret and its MaasMachine.
export function generateMaasCluster(o: { namespace?: string; cluster?: string; controlPlane: number; workers: number; dnsDomain?: string; image?: string }): unknown[] {
  const ns = o.namespace ?? 'capi';
  const cluster = o.cluster ?? 'demo';
  const objects: unknown[] = [
    { apiVersion: CAPI, kind: 'Cluster', metadata: { name: cluster, namespace: ns }, spec: { clusterNetwork: { apiServerPort: 6443 }, infrastructureRef: { kind: 'MaasCluster', name: cluster, namespace: ns } } },
    { apiVersion: INFRA, kind: 'MaasCluster', metadata: { name: cluster, namespace: ns, labels: { [CLUSTER_LABEL]: cluster }, ownerReferences: [{ apiVersion: CAPI, kind: 'Cluster', name: cluster }] }, spec: { dnsDomain: o.dnsDomain ?? 'maas', failureDomains: ['az1', 'az2'] } },
  ];
  const add = (name: string, controlPlane: boolean, i: number): void => {
    const labels = { [CLUSTER_LABEL]: cluster, ...(controlPlane ? { [CONTROL_PLANE_LABEL]: '' } : {}) };
    objects.push(
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-bootstrap`, namespace: ns, labels }, type: 'cluster.x-k8s.io/secret', stringData: { value: `#cloud-config\nhostname: ${name}\n`, format: 'cloud-config' } },
      { apiVersion: CAPI, kind: 'Machine', metadata: { name, namespace: ns, labels }, spec: { clusterName: cluster, bootstrap: { dataSecretName: `${name}-bootstrap` }, infrastructureRef: { kind: 'MaasMachine', name, namespace: ns }, failureDomain: i % 2 === 0 ? 'az1' : 'az2' } },
      { apiVersion: INFRA, kind: 'MaasMachine', metadata: { name, namespace: ns, labels, ownerReferences: [{ apiVersion: CAPI, kind: 'Machine', name }] }, spec: { minCPU: 1, minMemory: 1024, image: o.image ?? 'ubuntu/jammy', deployInMemory: false } },
    );
  };
  for (let i = 0; i < o.controlPlane; i++) add(`${cluster}-cp-${i}`, true, i);
  for (let i = 0; i < o.workers; i++) add(`${cluster}-worker-${i}`, false, i);
  return objects;
}
