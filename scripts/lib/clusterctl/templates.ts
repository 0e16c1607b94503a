// The cluster templates `clusterctl generate cluster --infrastructure metalfleet [--flavor F]`
// renders: plain (cluster-template.yaml), in-memory (the control plane deployed to RAM, CAPMAAS's
// deployInMemory) and worker-pools (two MachineDeployments, each with its own machine template).
// Kubeadm bootstrap and control plane, Cluster API v1beta1 objects (served by every CAPI from 1.5
// to 1.13, the contract metadata.yaml names).
//
// The MAAS objects are checked against the CRDs in deploy/crds: every field a template sets must
// exist in the schema and every required one must be set, so a schema change (new required field,
// renamed one) fails the release instead of shipping a template the API server refuses.
import type { Scalar } from 'yaml';
import type { Obj } from './yaml-objects.ts';
import { isObj, plain, readManifest } from './yaml-objects.ts';
import { INFRASTRUCTURE_GROUP } from './components.ts';

const CAPI = 'cluster.x-k8s.io/v1beta1';
const CONTROL_PLANE = 'controlplane.cluster.x-k8s.io/v1beta1';
const BOOTSTRAP = 'bootstrap.cluster.x-k8s.io/v1beta1';

interface MachineDefaults {
  readonly cpu: number;
  readonly memoryMb: number;
  /** Without one, the image is a required variable. */
  readonly image?: string;
}

type Schema = { type?: string; properties?: Record<string, Schema>; required?: string[] };

export interface MaasSchemas {
  readonly apiVersion: string;
  readonly machineSpec: Schema;
  readonly clusterSpec: Schema;
}

export async function maasSchemas(root: string): Promise<MaasSchemas> {
  const spec = async (plural: string, at: (s: Schema) => Schema | undefined): Promise<{ version: string; spec: Schema }> => {
    const file = `deploy/crds/${INFRASTRUCTURE_GROUP}_${plural}.yaml`;
    const crd = await readManifest(root, file);
    const versions = ((crd.spec as Obj).versions as Obj[]).filter((v) => v.storage === true);
    const version = versions[0];
    const schema = isObj(version?.schema) ? (version.schema as Obj).openAPIV3Schema as Schema : undefined;
    const found = schema ? at(schema) : undefined;
    if (!version || !found) throw new Error(`${file}: no spec schema in the storage version`);
    return { version: String(version.name), spec: found };
  };
  const template = await spec('maasmachinetemplates', (s) => s.properties?.spec?.properties?.template?.properties?.spec);
  const cluster = await spec('maasclusters', (s) => s.properties?.spec);
  return { apiVersion: `${INFRASTRUCTURE_GROUP}/${template.version}`, machineSpec: template.spec, clusterSpec: cluster.spec };
}

function checked(kind: string, schema: Schema, spec: Record<string, unknown>): Record<string, unknown> {
  for (const field of Object.keys(spec)) {
    if (!schema.properties?.[field]) throw new Error(`${kind}: the template sets spec.${field}, which the CRD in deploy/crds does not have`);
  }
  const missing = (schema.required ?? []).filter((f) => !(f in spec));
  if (missing.length > 0) throw new Error(`${kind}: the CRD in deploy/crds requires spec.${missing.join(', spec.')}, which the template does not set`);
  return spec;
}

/** The MAAS constraints of one role's machines, as variables named after it (CAPMAAS's names). */
function machineSpec(s: MaasSchemas, prefix: string, defaults: MachineDefaults, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return checked('MaasMachineTemplate', s.machineSpec, {
    image: defaults.image ? `\${${prefix}_IMAGE:=${defaults.image}}` : `\${${prefix}_IMAGE}`,
    minCPU: plain(`\${${prefix}_MINCPU:=${defaults.cpu}}`),
    minMemory: plain(`\${${prefix}_MINMEMORY:=${defaults.memoryMb}}`),
    resourcePool: `\${${prefix}_RESOURCEPOOL:=default}`,
    ...extra,
  });
}

function machineTemplate(s: MaasSchemas, name: string, spec: Record<string, unknown>): Obj {
  return { apiVersion: s.apiVersion, kind: 'MaasMachineTemplate', metadata: { name, namespace: '${NAMESPACE}' }, spec: { template: { spec } } };
}

function clusterObjects(s: MaasSchemas): Obj[] {
  return [
    {
      apiVersion: CAPI,
      kind: 'Cluster',
      metadata: { name: '${CLUSTER_NAME}', namespace: '${NAMESPACE}' },
      spec: {
        clusterNetwork: {
          pods: { cidrBlocks: ['${POD_CIDR:=192.168.0.0/16}'] },
          services: { cidrBlocks: ['${SERVICE_CIDR:=10.96.0.0/12}'] },
          serviceDomain: 'cluster.local',
        },
        controlPlaneRef: { apiVersion: CONTROL_PLANE, kind: 'KubeadmControlPlane', name: '${CLUSTER_NAME}-control-plane' },
        infrastructureRef: { apiVersion: s.apiVersion, kind: 'MaasCluster', name: '${CLUSTER_NAME}' },
      },
    },
    {
      apiVersion: s.apiVersion,
      kind: 'MaasCluster',
      metadata: { name: '${CLUSTER_NAME}', namespace: '${NAMESPACE}' },
      // The MAAS DNS domain the control-plane endpoint's record goes into (e.g. maas).
      spec: checked('MaasCluster', s.clusterSpec, { dnsDomain: '${MAAS_DNS_DOMAIN}' }),
    },
  ];
}

// cloud-init's hostname, as CAPMAAS's templates register nodes.
const NODE_NAME = '{{ v1.local_hostname }}';
// kubeadm needs swap off; MAAS images may enable it.
const PRE_KUBEADM = ["sed -ri '/\\sswap\\s/s/^#?/#/' /etc/fstab", 'swapoff -a'];

function controlPlane(s: MaasSchemas, inMemory: boolean): Obj[] {
  const name = '${CLUSTER_NAME}-control-plane';
  const extra = inMemory ? { deployInMemory: true } : {};
  return [
    machineTemplate(s, name, machineSpec(s, 'CONTROL_PLANE_MACHINE', inMemory ? { cpu: 4, memoryMb: 16384 } : { cpu: 4, memoryMb: 8192 }, extra)),
    {
      apiVersion: CONTROL_PLANE,
      kind: 'KubeadmControlPlane',
      metadata: { name, namespace: '${NAMESPACE}' },
      spec: {
        replicas: plain('${CONTROL_PLANE_MACHINE_COUNT}'),
        version: '${KUBERNETES_VERSION}',
        machineTemplate: { infrastructureRef: { apiVersion: s.apiVersion, kind: 'MaasMachineTemplate', name } },
        kubeadmConfigSpec: {
          initConfiguration: { nodeRegistration: { name: NODE_NAME } },
          joinConfiguration: { controlPlane: {}, nodeRegistration: { name: NODE_NAME } },
          preKubeadmCommands: PRE_KUBEADM,
        },
      },
    },
  ];
}

interface Pool {
  readonly suffix: string;
  readonly prefix: string;
  readonly replicas: Scalar;
  readonly defaults: MachineDefaults;
}

function workerPool(s: MaasSchemas, pool: Pool): Obj[] {
  const name = `\${CLUSTER_NAME}-${pool.suffix}`;
  return [
    machineTemplate(s, name, machineSpec(s, pool.prefix, pool.defaults)),
    {
      apiVersion: BOOTSTRAP,
      kind: 'KubeadmConfigTemplate',
      metadata: { name, namespace: '${NAMESPACE}' },
      spec: { template: { spec: { joinConfiguration: { nodeRegistration: { name: NODE_NAME } }, preKubeadmCommands: PRE_KUBEADM } } },
    },
    {
      apiVersion: CAPI,
      kind: 'MachineDeployment',
      metadata: { name, namespace: '${NAMESPACE}', labels: { 'cluster.x-k8s.io/cluster-name': '${CLUSTER_NAME}' } },
      spec: {
        clusterName: '${CLUSTER_NAME}',
        replicas: pool.replicas,
        selector: { matchLabels: { 'cluster.x-k8s.io/cluster-name': '${CLUSTER_NAME}', 'cluster.x-k8s.io/deployment-name': name } },
        template: {
          metadata: { labels: { 'cluster.x-k8s.io/cluster-name': '${CLUSTER_NAME}', 'cluster.x-k8s.io/deployment-name': name } },
          spec: {
            clusterName: '${CLUSTER_NAME}',
            version: '${KUBERNETES_VERSION}',
            bootstrap: { configRef: { apiVersion: BOOTSTRAP, kind: 'KubeadmConfigTemplate', name } },
            infrastructureRef: { apiVersion: s.apiVersion, kind: 'MaasMachineTemplate', name },
          },
        },
      },
    },
  ];
}

const WORKERS: Pool = { suffix: 'md-0', prefix: 'WORKER_MACHINE', replicas: plain('${WORKER_MACHINE_COUNT}'), defaults: { cpu: 4, memoryMb: 8192 } };

export interface Template {
  readonly file: string;
  readonly description: string;
  readonly objects: Obj[];
}

export function templates(s: MaasSchemas): Template[] {
  if (s.machineSpec.properties?.deployInMemory?.type !== 'boolean') throw new Error('MaasMachineTemplate: deploy/crds has no boolean spec.deployInMemory for the in-memory flavour');
  return [
    {
      file: 'cluster-template.yaml',
      description: 'A cluster on MAAS: a kubeadm control plane of CONTROL_PLANE_MACHINE_COUNT machines and WORKER_MACHINE_COUNT workers.',
      objects: [...clusterObjects(s), ...controlPlane(s, false), ...workerPool(s, WORKERS)],
    },
    {
      file: 'cluster-template-in-memory.yaml',
      description: 'As cluster-template.yaml, with the control-plane machines deployed in memory (MAAS ephemeral deploy: no disk written; MAAS >= 3.5.10, 3.6.3 or 3.7.1 and RAM for the image).',
      objects: [...clusterObjects(s), ...controlPlane(s, true), ...workerPool(s, WORKERS)],
    },
    {
      file: 'cluster-template-worker-pools.yaml',
      description: 'As cluster-template.yaml, plus a second worker pool (md-1) with its own machine constraints, e.g. larger machines from another MAAS resource pool.',
      objects: [...clusterObjects(s), ...controlPlane(s, false), ...workerPool(s, WORKERS), ...workerPool(s, {
        suffix: 'md-1', prefix: 'WORKER_POOL_1_MACHINE', replicas: plain('${WORKER_POOL_1_MACHINE_COUNT:=1}'), defaults: { cpu: 8, memoryMb: 32768, image: '${WORKER_MACHINE_IMAGE}' },
      })],
    },
  ];
}
