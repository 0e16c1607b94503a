import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CUSTOM_RESOURCES } from '../../src/machines/kinds.ts';
import { REPO, filesUnder } from './kustomize.ts';
import { isObject } from './openapi.ts';

// The example and sample manifests baremetal-operator and CAPMAAS publish (test/deploy/upstream,
// see its README), read as `clusterctl generate` and `kubectl apply` would read them, and what
// upstream's own CRDs make of those they do not simply accept. Shared by the schema comparison
// (upstream-samples.test.ts) and the kubectl end-to-end test.

type Obj = Record<string, unknown>;

const UPSTREAM = join(REPO, 'test/deploy/upstream');

// What `clusterctl generate cluster` would be given for the templates' variables; a variable not
// listed here fails the test, so a template that gains one is looked at.
const TEMPLATE_VARIABLES: Record<string, string> = {
  CLUSTER_NAME: 'c1', KUBERNETES_VERSION: 'v1.33.1', DNS_DOMAIN: 'maas', MAAS_DNS_DOMAIN: 'maas',
  CONTROL_PLANE_MACHINE_COUNT: '3', CONTROL_PLANE_MACHINE_MINCPU: '4', CONTROL_PLANE_MACHINE_MINMEMORY: '8192',
  CONTROL_PLANE_MACHINE_MINSTORAGE: '60', CONTROL_PLANE_MACHINE_IMAGE: 'ubuntu/jammy', CONTROL_PLANE_MACHINE_RESOURCEPOOL: 'cp-pool',
  CONTROL_PLANE_MACHINE_TAG: 'control-plane', CONTROL_PLANE_ZONE: 'az1', MACHINE_IMAGE: 'ubuntu/jammy',
  WORKER_MACHINE_COUNT: '2', WORKER_MACHINE_MINCPU: '2', WORKER_MACHINE_MINMEMORY: '4096', WORKER_MACHINE_MINSTORAGE: '40',
  WORKER_MACHINE_IMAGE: 'ubuntu/jammy', WORKER_MACHINE_RESOURCEPOOL: 'worker-pool', WORKER_MACHINE_TAG: 'worker', WORKER_ZONE: 'az2',
  LXD_RESOURCE_POOL: 'lxd-pool', LXD_STORAGE_SIZE: '50',
};

function fillVariables(text: string, file: string): string {
  // envsubst, as clusterctl runs it, takes `${NAME}` and `${ NAME }`.
  return text.replace(/\$\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}/g, (_, name: string) => {
    const value = TEMPLATE_VARIABLES[name];
    if (value === undefined) throw new Error(`${file}: template variable ${name} has no test value`);
    return value;
  });
}

export interface Sample {
  /** `capmaas/examples/sample-cp-only.yaml MaasCluster t-cluster`. */
  readonly id: string;
  readonly object: Obj;
}

export async function samples(): Promise<Sample[]> {
  const kinds = new Set(CUSTOM_RESOURCES.map((r) => r.kind));
  const out: Sample[] = [];
  for (const file of await filesUnder(UPSTREAM, '.yaml')) {
    const path = relative(UPSTREAM, join(REPO, file));
    if (path.split('/')[1] === 'crds') continue;
    const text = fillVariables(await readFile(join(REPO, file), 'utf8'), path);
    for (const doc of parseAllDocuments(text)) {
      const object: unknown = doc.toJS();
      if (!isObject(object) || !kinds.has(String(object.kind))) continue;
      const name = isObject(object.metadata) ? String(object.metadata.name) : '?';
      out.push({ id: `${path} ${String(object.kind)} ${name}`, object });
    }
  }
  return out;
}


/** What the API server makes of a create: unknown fields (each refuses under Strict) and field errors. */
export interface Verdict {
  readonly unknownFields: string[];
  readonly errors: string[];
}

// What upstream's CRDs do with the objects that are not simply accepted; every other sample must
// be accepted. Written out so that the test says what upstream does, not only that we match it.
export const NOT_ACCEPTED: Record<string, Verdict> = {
  // BMO's own sample: a placeholder field, and no `online`, which its CRD requires.
  'bmo/config/samples/metal3.io_v1alpha1_baremetalhost.yaml BareMetalHost baremetalhost-sample': { unknownFields: ['spec.foo'], errors: ['spec.online: Required'] },
  // BMO's samples of its companion kinds do not fit its own CRDs: the FirmwareSchema sample puts
  // its schema under a status the kind does not have, the HostFirmwareComponents sample names a
  // component `name`, and the HostFirmwareSettings sample writes its settings as a list of maps.
  // kubectl refuses all three (test/fixtures/bmo-companions has them as BMO's Go types read them).
  'bmo/config/samples/metal3.io_v1alpha1_firmwareschema.yaml FirmwareSchema firmwareschema-sample': { unknownFields: ['status'], errors: [] },
  'bmo/config/samples/metal3.io_v1alpha1_hostfirmwarecomponents.yaml HostFirmwareComponents hostfirmwarecomponents-sample': {
    unknownFields: ['spec.updates[0].name', 'spec.updates[1].name', 'status.updates[0].name', 'status.updates[1].name'],
    errors: ['spec.updates[0].component: Required', 'spec.updates[1].component: Required', 'status.updates[0].component: Required', 'status.updates[1].component: Required'],
  },
  'bmo/config/samples/metal3.io_v1alpha1_hostfirmwaresettings.yaml HostFirmwareSettings hostfirmwaresettings-sample': {
    unknownFields: [
      'spec.settings[0].ProcVirtualization', 'spec.settings[1].SRIOV', 'spec.settings[2].NetworkBootRetryCount',
      'status.settings[0].ProcVirtualization', 'status.settings[1].ProcCPUCores', 'status.settings[2].SRIOV',
      'status.settings[3].SystemModelName', 'status.settings[4].SerialNumber', 'status.settings[5].NetworkBootRetryCount',
    ],
    errors: ['spec.settings: TypeInvalid', 'status.settings: TypeInvalid'],
  },
  // CAPMAAS samples that use fields of a newer (or never merged) API than their CRDs have.
  'capmaas/examples/sample-lxd-cluster.yaml MaasCluster lxd-cluster': { unknownFields: ['spec.lxdControlPlaneCluster'], errors: [] },
  'capmaas/examples/sample-lxd-cluster.yaml MaasMachineTemplate lxd-cluster-control-plane': { unknownFields: ['spec.template.spec.dynamicLXD', 'spec.template.spec.staticIP'], errors: [] },
  'capmaas/examples/sample-lxd-cluster.yaml MaasMachineTemplate lxd-cluster-worker': { unknownFields: ['spec.template.spec.dynamicLXD', 'spec.template.spec.staticIP'], errors: [] },
  'capmaas/examples/sample-with-workerpool.yaml MaasMachineTemplate t-cluster-md-0': { unknownFields: ['status'], errors: [] },
  'capmaas/examples/sample-workload-cluster.yaml MaasCluster workload-cluster': { unknownFields: ['spec.infrastructureClusterRef', 'spec.workloadClusterConfig'], errors: [] },
};

