import type { z } from 'zod';
import { BMH_API_VERSION, BMH_KIND, BareMetalHost } from '../bmh/schema.ts';
import { MAAS_API_VERSION, MAAS_CLUSTER_KIND, MAAS_MACHINE_KIND, MAAS_MACHINE_TEMPLATE_KIND } from '../maas/constants.ts';
import { MaasCluster, MaasMachine, MaasMachineTemplate } from '../maas/schema.ts';

// The custom resources metalfleet serves, with the names, columns and labels of the CRDs they
// replace: baremetal-operator's (config/base/crds/bases/metal3.io_baremetalhosts.yaml) and
// CAPMAAS's (config/crd/bases, at the commit reference/capmaas.md reads), so kubectl shows the
// same and Cluster API finds the provider the same way.

export interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  readonly jsonPath: string;
  readonly description: string;
  /** 1: shown only with `kubectl get -o wide`. */
  readonly priority?: number;
}

export interface CustomResource {
  /** `group/version`. */
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly labels?: Readonly<Record<string, string>>;
  readonly description: string;
  readonly schema: z.ZodType;
  readonly statusSubresource: boolean;
  readonly printerColumns?: readonly PrinterColumn[];
}

/** On every metalfleet object. */
export const PART_OF_LABEL = { 'app.kubernetes.io/part-of': 'metalfleet' } as const;

// The Cluster API contract labels: CAPI reads `cluster.x-k8s.io/<contract>` on a provider's CRD to
// learn which of its API versions implements that contract. v1beta2 core (CAPI >= 1.11) needs its
// label to resolve the apiGroup-only infrastructureRefs of v1beta2 Machines and Clusters; CAPMAAS
// sets both, and the MAAS schemas read both contracts (src/api/maas/capi.ts).
export const CAPI_CONTRACT_LABELS = {
  'cluster.x-k8s.io/v1beta1': 'v1beta1',
  'cluster.x-k8s.io/v1beta2': 'v1beta1',
} as const;

const maas = {
  apiVersion: MAAS_API_VERSION,
  categories: ['cluster-api'],
  labels: { ...PART_OF_LABEL, ...CAPI_CONTRACT_LABELS },
  // CAPMAAS enables the status subresource on all three kinds, the template (which has no
  // status) included; the same here, so the API surface is the one CAPMAAS users know.
  statusSubresource: true,
} as const;

export const CUSTOM_RESOURCES: readonly CustomResource[] = [
  {
    apiVersion: BMH_API_VERSION,
    kind: BMH_KIND,
    plural: 'baremetalhosts',
    singular: 'baremetalhost',
    shortNames: ['bmh', 'bmhost'],
    labels: PART_OF_LABEL,
    description: 'BareMetalHost is a physical server driven through Ironic, as Metal3\'s baremetal-operator defines it.',
    schema: BareMetalHost,
    statusSubresource: true,
    // baremetal-operator's columns, priorities and descriptions as its CRD has them.
    printerColumns: [
      { name: 'Status', type: 'string', jsonPath: '.status.operationalStatus', description: 'Operational status', priority: 1 },
      { name: 'State', type: 'string', jsonPath: '.status.provisioning.state', description: 'Provisioning status' },
      { name: 'Consumer', type: 'string', jsonPath: '.spec.consumerRef.name', description: 'Consumer using this host' },
      { name: 'BMC', type: 'string', jsonPath: '.spec.bmc.address', description: 'Address of management controller', priority: 1 },
      { name: 'Online', type: 'string', jsonPath: '.spec.online', description: 'Whether the host is online or not' },
      { name: 'Error', type: 'string', jsonPath: '.status.errorType', description: 'Type of the most recent error' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Time duration since creation of BaremetalHost' },
    ],
  },
  // CAPMAAS's CRDs declare no printer columns.
  {
    ...maas,
    kind: MAAS_MACHINE_KIND,
    plural: 'maasmachines',
    singular: 'maasmachine',
    description: 'MaasMachine is a machine allocated and deployed through MAAS for a Cluster API Machine, as CAPMAAS defines it.',
    schema: MaasMachine,
  },
  {
    ...maas,
    kind: MAAS_MACHINE_TEMPLATE_KIND,
    plural: 'maasmachinetemplates',
    singular: 'maasmachinetemplate',
    description: 'MaasMachineTemplate is the MaasMachine spec Cluster API copies into each machine it creates, as CAPMAAS defines it.',
    schema: MaasMachineTemplate,
  },
  {
    ...maas,
    kind: MAAS_CLUSTER_KIND,
    plural: 'maasclusters',
    singular: 'maascluster',
    description: 'MaasCluster is the MAAS side of a Cluster API Cluster: its DNS record and failure domains, as CAPMAAS defines it.',
    schema: MaasCluster,
  },
];
