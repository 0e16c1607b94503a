import type { z } from 'zod';
import { MAAS_API_VERSION } from '../maas/constants.ts';

// What a custom resource is made of. Each kind declares its own (src/machines/<kind>/kind.ts),
// with the names, columns and labels of the CRD it replaces: baremetal-operator's
// (config/base/crds/bases/metal3.io_baremetalhosts.yaml) and CAPMAAS's (config/crd/bases, at the
// commit reference/capmaas.md reads), so kubectl shows the same and Cluster API finds the
// provider the same way.

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

/** What every CAPMAAS kind's CRD shares. */
export const MAAS_RESOURCE_BASE = {
  apiVersion: MAAS_API_VERSION,
  categories: ['cluster-api'],
  labels: { ...PART_OF_LABEL, ...CAPI_CONTRACT_LABELS },
  // CAPMAAS enables the status subresource on all three kinds, the template (which has no
  // status) included; the same here, so the API surface is the one CAPMAAS users know.
  statusSubresource: true,
} as const;
