import { z } from 'zod';
import { Condition, ObjectMeta } from '../meta.ts';
import { MAAS_API_VERSION, MAAS_CLUSTER_KIND, MAAS_MACHINE_KIND, MAAS_MACHINE_TEMPLATE_KIND } from './constants.ts';
import { pruneNulls } from './prune-nulls.ts';

// MaasCluster, MaasMachine and MaasMachineTemplate (infrastructure.cluster.x-k8s.io/v1beta1),
// field for field and default for default as CAPMAAS's CRDs have them (reference/capmaas.md §1),
// so manifests written for CAPMAAS apply unchanged. Unknown fields are dropped, as the API server
// prunes them; the LXD blocks (HCP only) keep theirs.

const count = z.number().int().min(0);

/** `spec.lxd.vmConfig`: how an LXD VM is composed on its host (HCP only). */
export const MaasVmConfig = z.looseObject({
  /** GB. */
  diskSize: z.number().int().default(60),
  storagePool: z.string().optional(),
  network: z.string().optional(),
  /** Interface name → MAAS link mode (`auto`, `dhcp`, `static`, `link_up`). */
  interfaceLinkModes: z.record(z.string(), z.string()).optional(),
  autoStart: z.boolean().default(true),
});
export type MaasVmConfig = z.infer<typeof MaasVmConfig>;

/** `MaasMachine.spec.lxd`: create the machine as an LXD VM instead of on bare metal (HCP only). */
export const MaasMachineLxdConfig = z.looseObject({
  enabled: z.boolean().default(false),
  vmConfig: MaasVmConfig.optional(),
});
export type MaasMachineLxdConfig = z.infer<typeof MaasMachineLxdConfig>;

export const MaasMachineSpec = z.object({
  /** MAAS zone to allocate in; falls back to the Machine's, and is overwritten with the actual zone. */
  failureDomain: z.string().optional(),
  /** MAAS system id, set after allocation. */
  systemID: z.string().optional(),
  /** System id of the LXD host (LXD VMs only). */
  parent: z.string().optional(),
  /** `maas:///<zone>/<system_id>` (see formatProviderId). */
  providerID: z.string().optional(),
  /** → allocate `pool`. */
  resourcePool: z.string().optional(),
  /** → allocate `cpu_count`. Immutable. */
  minCPU: count,
  /** MB → allocate `mem`. Immutable. */
  minMemory: count,
  /** GB; used only when composing LXD VMs. */
  minDiskSize: count.optional(),
  /** → allocate `tags`; a machine must carry all of them. */
  tags: z.array(z.string()).optional(),
  /** `<osystem>/<distro_series>`, or a custom image name (see splitImage). Immutable. */
  image: z.string().min(1),
  /** → deploy `ephemeral_deploy`. */
  deployInMemory: z.boolean().default(false),
  lxd: MaasMachineLxdConfig.optional(),
});
export type MaasMachineSpec = z.infer<typeof MaasMachineSpec>;

export const MACHINE_ADDRESS_TYPES = ['Hostname', 'ExternalIP', 'InternalIP', 'ExternalDNS', 'InternalDNS'] as const;
/** A Cluster API MachineAddress. */
export const MachineAddress = z.object({
  type: z.enum(MACHINE_ADDRESS_TYPES),
  address: z.string(),
});
export type MachineAddress = z.infer<typeof MachineAddress>;

export const MaasMachineStatus = z.object({
  ready: z.boolean().default(false),
  /** `provisioned` is never reset once true (CAPI v1beta2 contract). */
  initialization: z.object({ provisioned: z.boolean().optional() }).optional(),
  /** MAAS `status_name`, e.g. `Deployed`. */
  machineState: z.string().optional(),
  /** MAAS `power_state == "on"`. */
  machinePowered: z.boolean().optional(),
  hostname: z.string().optional(),
  /** The cluster's DNS record holds this machine's address (control plane). */
  dnsAttached: z.boolean().optional(),
  addresses: z.array(MachineAddress).optional(),
  conditions: z.array(Condition).optional(),
  /** Legacy (CAPI v1beta1) terminal failure, e.g. `UpdateError`. */
  failureReason: z.string().optional(),
  failureMessage: z.string().optional(),
});
export type MaasMachineStatus = z.infer<typeof MaasMachineStatus>;

export const MaasMachine = z.preprocess(pruneNulls, z.object({
  apiVersion: z.literal(MAAS_API_VERSION),
  kind: z.literal(MAAS_MACHINE_KIND),
  metadata: ObjectMeta,
  spec: MaasMachineSpec,
  status: MaasMachineStatus.optional(),
}));
export type MaasMachine = z.infer<typeof MaasMachine>;

export const MaasMachineTemplateSpec = z.object({
  template: z.object({ spec: MaasMachineSpec }),
});
export type MaasMachineTemplateSpec = z.infer<typeof MaasMachineTemplateSpec>;

/** Has no status. */
export const MaasMachineTemplate = z.preprocess(pruneNulls, z.object({
  apiVersion: z.literal(MAAS_API_VERSION),
  kind: z.literal(MAAS_MACHINE_TEMPLATE_KIND),
  metadata: ObjectMeta,
  spec: MaasMachineTemplateSpec,
}));
export type MaasMachineTemplate = z.infer<typeof MaasMachineTemplate>;

/** `MaasCluster.spec.lxdConfig`: register the cluster's machines as LXD VM hosts (HCP only). */
export const MaasLxdConfig = z.looseObject({
  enabled: z.boolean().default(false),
  resourcePool: z.string().optional(),
  zone: z.string().optional(),
  storageBackend: z.string().default('zfs'),
  /** GB, as a string. */
  storageSize: z.string().default('50'),
  nicType: z.enum(['bridge', 'macvlan']).optional(),
  nicParent: z.string().optional(),
  /** Legacy; nicParent is preferred. */
  networkBridge: z.string().optional(),
  skipNetworkUpdate: z.boolean().default(true),
});
export type MaasLxdConfig = z.infer<typeof MaasLxdConfig>;

/** Where the workload API server is reached. */
export const ApiEndpoint = z.object({
  host: z.string(),
  port: z.number().int(),
});
export type ApiEndpoint = z.infer<typeof ApiEndpoint>;

export const MaasClusterSpec = z.object({
  /** MAAS DNS domain the API server record is created in, e.g. `maas`. Immutable. */
  dnsDomain: z.string().min(1),
  /** Filled by the controller: `<dnsName>:<apiServerPort>`. */
  controlPlaneEndpoint: ApiEndpoint.optional(),
  /** MAAS zone names machines may be placed in. */
  failureDomains: z.array(z.string()).optional(),
  lxdConfig: MaasLxdConfig.optional(),
});
export type MaasClusterSpec = z.infer<typeof MaasClusterSpec>;

/** A Cluster API (v1beta2) FailureDomain, as the cluster status lists them. */
export const MaasClusterFailureDomain = z.object({
  name: z.string().min(1),
  controlPlane: z.boolean().optional(),
  attributes: z.record(z.string(), z.string()).optional(),
});
export type MaasClusterFailureDomain = z.infer<typeof MaasClusterFailureDomain>;

export const MaasClusterStatus = z.object({
  ready: z.boolean().default(false),
  initialization: z.object({ provisioned: z.boolean().optional() }).optional(),
  /** `dnsName` is the API server's FQDN, e.g. `c1-3f9a2b.maas`. */
  network: z.object({ dnsName: z.string().optional() }).optional(),
  /** Rebuilt from spec.failureDomains on every reconcile, each with controlPlane: true. */
  failureDomains: z.array(MaasClusterFailureDomain).optional(),
  conditions: z.array(Condition).optional(),
});
export type MaasClusterStatus = z.infer<typeof MaasClusterStatus>;

export const MaasCluster = z.preprocess(pruneNulls, z.object({
  apiVersion: z.literal(MAAS_API_VERSION),
  kind: z.literal(MAAS_CLUSTER_KIND),
  metadata: ObjectMeta,
  spec: MaasClusterSpec,
  status: MaasClusterStatus.optional(),
}));
export type MaasCluster = z.infer<typeof MaasCluster>;
