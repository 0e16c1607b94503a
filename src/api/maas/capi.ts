import { z } from 'zod';
import { ObjectMeta } from '../meta.ts';
import { pruneNulls } from './prune-nulls.ts';

// The Cluster API objects a MaasMachine or MaasCluster reconcile reads (reference/capmaas.md
// §2.2-2.3), and only those fields. CAPI owns these objects, so everything else passes through
// untouched. v1beta1 and v1beta2 are both read: the fields used are the same, except the
// cluster's "infrastructure ready" flag and the shape of references (namespace in v1beta1,
// apiGroup in v1beta2).

export const CAPI_API_VERSIONS = ['cluster.x-k8s.io/v1beta1', 'cluster.x-k8s.io/v1beta2'] as const;
export const CAPI_MACHINE_KIND = 'Machine';
export const CAPI_CLUSTER_KIND = 'Cluster';

/** On every object of a cluster: the Cluster's name. */
export const CAPI_CLUSTER_NAME_LABEL = 'cluster.x-k8s.io/cluster-name';
/** Present (any value) on control-plane Machines and MaasMachines. */
export const CAPI_CONTROL_PLANE_LABEL = 'cluster.x-k8s.io/control-plane';
/** On any object: stop reconciling it, like `Cluster.spec.paused` does for the whole cluster. */
export const CAPI_PAUSED_ANNOTATION = 'cluster.x-k8s.io/paused';
/** The API server port when the Cluster does not set one. */
export const DEFAULT_API_SERVER_PORT = 6443;

/** A reference to the infrastructure object: v1beta1 carries apiVersion and namespace, v1beta2 apiGroup. */
export const CapiObjectReference = z.looseObject({
  apiVersion: z.string().optional(),
  apiGroup: z.string().optional(),
  kind: z.string().min(1),
  name: z.string().min(1),
  namespace: z.string().optional(),
});
export type CapiObjectReference = z.infer<typeof CapiObjectReference>;

export const CapiMachine = z.preprocess(pruneNulls, z.looseObject({
  apiVersion: z.enum(CAPI_API_VERSIONS),
  kind: z.literal(CAPI_MACHINE_KIND),
  metadata: ObjectMeta,
  spec: z.looseObject({
    clusterName: z.string().min(1),
    /** `dataSecretName` is unset until the bootstrap provider has written the Secret. */
    bootstrap: z.looseObject({ dataSecretName: z.string().optional() }),
    infrastructureRef: CapiObjectReference,
    failureDomain: z.string().optional(),
  }),
}));
export type CapiMachine = z.infer<typeof CapiMachine>;

export const CapiCluster = z.preprocess(pruneNulls, z.looseObject({
  apiVersion: z.enum(CAPI_API_VERSIONS),
  kind: z.literal(CAPI_CLUSTER_KIND),
  metadata: ObjectMeta,
  spec: z.looseObject({
    paused: z.boolean().optional(),
    controlPlaneEndpoint: z.looseObject({ host: z.string().optional(), port: z.number().int().optional() }).optional(),
    clusterNetwork: z.looseObject({ apiServerPort: z.number().int().optional() }).optional(),
    infrastructureRef: CapiObjectReference.optional(),
  }).optional(),
  status: z.looseObject({
    /** v1beta2. */
    initialization: z.looseObject({ infrastructureProvisioned: z.boolean().optional() }).optional(),
    /** v1beta1. */
    infrastructureReady: z.boolean().optional(),
  }).optional(),
}));
export type CapiCluster = z.infer<typeof CapiCluster>;

/** The machine is a control-plane machine: it carries the control-plane label, whatever its value. */
export function isControlPlaneMachine(object: { metadata: { labels?: Record<string, string> | undefined } }): boolean {
  return object.metadata.labels?.[CAPI_CONTROL_PLANE_LABEL] !== undefined;
}

/** The cluster's infrastructure (its MaasCluster) is provisioned: v1beta2's flag, else v1beta1's. */
export function isClusterInfrastructureProvisioned(cluster: CapiCluster): boolean {
  return cluster.status?.initialization?.infrastructureProvisioned ?? cluster.status?.infrastructureReady ?? false;
}

/** Reconciling stops while the Cluster is paused or `object` carries the paused annotation. */
export function isCapiPaused(cluster: CapiCluster, object?: { metadata: { annotations?: Record<string, string> | undefined } }): boolean {
  return cluster.spec?.paused === true || object?.metadata.annotations?.[CAPI_PAUSED_ANNOTATION] !== undefined;
}

/** `spec.clusterNetwork.apiServerPort`, or 6443. */
export function apiServerPortOf(cluster: CapiCluster): number {
  return cluster.spec?.clusterNetwork?.apiServerPort ?? DEFAULT_API_SERVER_PORT;
}
