import { z } from 'zod';
import { Condition, ObjectMeta } from '../meta.ts';
import { MAAS_API_VERSION, MAAS_CLUSTER_KIND, MAAS_MACHINE_KIND, MAAS_MACHINE_TEMPLATE_KIND } from './constants.ts';
import { ApiServerInterface, ControlPlaneVip, ControlPlaneVipStatus } from './control-plane-vip.ts';
import { pruneNulls } from './prune-nulls.ts';

// MaasCluster, MaasMachine and MaasMachineTemplate (infrastructure.cluster.x-k8s.io/v1beta1),
// field for field and default for default as CAPMAAS's CRDs have them (reference/capmaas.md §1),
// so manifests written for CAPMAAS apply unchanged. Unknown fields are dropped, as the API server
// prunes them.

const count = z.number().int().min(0);

// Unknown fields inside the LXD blocks are pruned, as CAPMAAS's CRD prunes them (and a server
// with strict field validation reports them), rather than kept.

/** `spec.lxd.vmConfig`: how an LXD VM is composed on its host (HCP only). */
export const MaasVmConfig = z.object({
  diskSize: z.number().int().default(60).describe('Root disk size of the VM, in GB.'),
  storagePool: z.string().optional().describe('LXD storage pool the VM\'s disk is created in.'),
  network: z.string().optional().describe('Network (bridge) the VM\'s NIC is attached to.'),
  interfaceLinkModes: z.record(z.string(), z.string().describe('MAAS link mode: auto, dhcp, static or link_up.')).optional().describe('MAAS link mode per interface name of the VM.'),
  autoStart: z.boolean().default(true).describe('Start the VM when its LXD host starts.'),
}).describe('How the LXD VM is composed on its host.');
export type MaasVmConfig = z.infer<typeof MaasVmConfig>;

/** `MaasMachine.spec.lxd`: create the machine as an LXD VM instead of on bare metal (HCP only). */
export const MaasMachineLxdConfig = z.object({
  enabled: z.boolean().default(false).describe('Compose the machine as an LXD VM on a MAAS LXD host instead of allocating bare metal.'),
  vmConfig: MaasVmConfig.optional(),
}).describe('Create the machine as an LXD VM (hosted control planes only).');
export type MaasMachineLxdConfig = z.infer<typeof MaasMachineLxdConfig>;

// CAPMAAS has one `image` string; metalfleet also takes the OS as MAAS names it (osSystem +
// distroSeries, custom images as osSystem custom), MAAS's kernel options and a static address.
// Which of image or osSystem/distroSeries is given is checked at admission (validate.ts), since a
// structural CRD schema cannot say "one of".

/** `spec.staticAddress`: a static address on one of the machine's interfaces, set through MAAS's link_subnet before deploy. */
export const MaasStaticAddress = z.object({
  interface: z.string().min(1).optional().describe('Name of the machine\'s interface in MAAS (e.g. eno1); its boot interface when unset.'),
  subnet: z.string().min(1).describe('The MAAS subnet to take the address from: its id, name or CIDR (e.g. 10.10.1.0/24).'),
  address: z.string().min(1).optional().describe('The IPv4 address to assign; MAAS picks a free one in the subnet when unset.'),
  defaultGateway: z.boolean().optional().describe('Make the subnet\'s gateway the machine\'s default gateway (MAAS link_subnet default_gateway).'),
}).describe('A static address for the machine: the interface\'s AUTO link is replaced by a STATIC one on this subnet before deploy.');
export type MaasStaticAddress = z.infer<typeof MaasStaticAddress>;

export const MaasMachineSpec = z.object({
  failureDomain: z.string().optional().describe('MAAS zone to allocate the machine in; the Machine\'s failure domain when unset. Overwritten with the zone the machine was allocated in.'),
  systemID: z.string().optional().describe('MAAS system id of the machine, set once it is allocated.'),
  parent: z.string().optional().describe('System id of the LXD host the VM runs on (LXD VMs only).'),
  providerID: z.string().optional().describe('The machine\'s provider id, maas:///<zone>/<system_id>; also set on the workload Node.'),
  resourcePool: z.string().optional().describe('MAAS resource pool to allocate from.'),
  minCPU: count.describe('Fewest CPU cores the machine must have. Immutable.'),
  minMemory: count.describe('Least memory the machine must have, in MB. Immutable.'),
  minDiskSize: count.optional().describe('Smallest root disk, in GB; used only when composing LXD VMs.'),
  tags: z.array(z.string().describe('A MAAS tag name.')).optional().describe('MAAS tags the machine must all carry.'),
  image: z.string().min(1).optional().describe('What to deploy: <osystem>/<distro_series> (e.g. ubuntu/jammy, custom/my-image) or the name of a custom image in MAAS. Required unless osSystem and distroSeries are given. Immutable.'),
  osSystem: z.string().min(1).optional().describe('The operating system MAAS deploys (ubuntu, centos, rhel, custom, ...), with distroSeries; instead of image. Immutable.'),
  distroSeries: z.string().min(1).optional().describe('The release of osSystem MAAS deploys (jammy; for custom, the custom image\'s name), with osSystem; instead of image. Immutable.'),
  hweKernel: z.string().min(1).optional().describe('The kernel MAAS installs (deploy hwe_kernel, e.g. hwe-22.04 or ga-22.04); MAAS picks one when unset. Immutable.'),
  minHweKernel: z.string().min(1).optional().describe('The oldest kernel the machine may get (MAAS min_hwe_kernel, set on the machine before deploy; needs an admin key). Immutable.'),
  enableHwSync: z.boolean().optional().describe('Deploy with MAAS\'s hardware sync agent (deploy enable_hw_sync; Linux images only).'),
  staticAddress: MaasStaticAddress.optional(),
  deployInMemory: z.boolean().default(false).describe('Deploy the OS into memory (ephemeral deploy) instead of to disk.'),
  lxd: MaasMachineLxdConfig.optional(),
}).describe('The machine to allocate from MAAS and the OS to deploy on it.');
export type MaasMachineSpec = z.infer<typeof MaasMachineSpec>;

export const MACHINE_ADDRESS_TYPES = ['Hostname', 'ExternalIP', 'InternalIP', 'ExternalDNS', 'InternalDNS'] as const;
/** A Cluster API MachineAddress. */
export const MachineAddress = z.object({
  type: z.enum(MACHINE_ADDRESS_TYPES).describe('Kind of address: Hostname, ExternalIP, InternalIP, ExternalDNS or InternalDNS.'),
  address: z.string().min(1).max(256).describe('The address.'),
}).describe('An address of the machine.');
export type MachineAddress = z.infer<typeof MachineAddress>;

/** A Cluster API condition, described for the MAAS kinds' CRDs. */
const MaasCondition = Condition.extend({
  type: Condition.shape.type.describe('Condition type, e.g. Ready or MachineDeployed.'),
  status: Condition.shape.status.describe('True, False or Unknown.'),
  reason: Condition.shape.reason.describe('A CamelCase word saying why the condition has its status.'),
  message: Condition.shape.message.describe('Details, for people.'),
  lastTransitionTime: Condition.shape.lastTransitionTime.describe('When the status last changed (RFC 3339).'),
  observedGeneration: Condition.shape.observedGeneration.describe('The metadata.generation the condition was computed for.'),
}).describe('One aspect of the object\'s state.');

const Initialization = z.object({
  provisioned: z.boolean().optional().describe('The infrastructure is provisioned; never reset once true (Cluster API v1beta2 contract).'),
}).describe('Initialization progress, as the Cluster API contract reads it.');

export const MaasMachineStatus = z.object({
  ready: z.boolean().default(false).describe('The machine is deployed and ready (Cluster API v1beta1 contract).'),
  initialization: Initialization.optional(),
  machineState: z.string().optional().describe('The machine\'s MAAS status name, e.g. Deployed.'),
  machinePowered: z.boolean().optional().describe('MAAS reports the machine powered on.'),
  hostname: z.string().optional().describe('The machine\'s hostname in MAAS.'),
  dnsAttached: z.boolean().optional().describe('The cluster\'s API server DNS record holds this machine\'s address (control plane only).'),
  addresses: z.array(MachineAddress).optional().describe('Addresses of the machine.'),
  conditions: z.array(MaasCondition).optional().describe('Conditions of the machine.'),
  failureReason: z.string().optional().describe('Legacy (Cluster API v1beta1): a terminal failure, as a reason code, e.g. UpdateError.'),
  failureMessage: z.string().optional().describe('Legacy (Cluster API v1beta1): a terminal failure, for people.'),
}).describe('The observed state of the machine, written by the controller.');
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
  template: z.object({ spec: MaasMachineSpec }).describe('The MaasMachine each Machine of the template gets.'),
}).describe('The MaasMachine Cluster API creates for each Machine made from this template.');
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
export const MaasLxdConfig = z.object({
  enabled: z.boolean().default(false).describe('Register the cluster\'s machines as MAAS LXD VM hosts.'),
  resourcePool: z.string().optional().describe('MAAS resource pool the LXD hosts are registered in.'),
  zone: z.string().optional().describe('MAAS zone the LXD hosts are registered in.'),
  storageBackend: z.string().default('zfs').describe('LXD storage backend, e.g. zfs or dir.'),
  storageSize: z.string().default('50').describe('Size of the LXD storage pool, in GB, as a string.'),
  nicType: z.enum(['bridge', 'macvlan']).optional().describe('How VM NICs attach to the host network: bridge or macvlan.'),
  nicParent: z.string().optional().describe('Host interface or bridge the VM NICs attach to.'),
  networkBridge: z.string().optional().describe('Legacy: the bridge VM NICs attach to; nicParent is preferred.'),
  skipNetworkUpdate: z.boolean().default(true).describe('Leave the host\'s network configuration as it is when registering it.'),
}).describe('Register the cluster\'s machines as LXD VM hosts (hosted control planes only).');
export type MaasLxdConfig = z.infer<typeof MaasLxdConfig>;

/** Where the workload API server is reached. */
export const ApiEndpoint = z.object({
  host: z.string().describe('DNS name or IP address of the API server.'),
  port: z.number().int().describe('Port of the API server.'),
}).describe('Where the workload cluster\'s API server is reached; filled by the controller.');
export type ApiEndpoint = z.infer<typeof ApiEndpoint>;

export const MaasClusterSpec = z.object({
  dnsDomain: z.string().min(1).describe('MAAS DNS domain the API server record is created in, e.g. maas. Immutable.'),
  controlPlaneEndpoint: ApiEndpoint.optional(),
  failureDomains: z.array(z.string().describe('A MAAS zone name.')).optional().describe('MAAS zones machines may be placed in.'),
  lxdConfig: MaasLxdConfig.optional(),
  controlPlaneVIP: ControlPlaneVip.optional(),
  apiServerInterface: ApiServerInterface.optional(),
}).superRefine((spec, ctx) => {
  // The interface choice picks addresses for the DNS record, which a VIP cluster does not keep.
  if (spec.controlPlaneVIP && spec.apiServerInterface) {
    ctx.addIssue({ code: 'custom', path: ['apiServerInterface'], message: 'Forbidden: apiServerInterface chooses the addresses of the DNS record, and a cluster with controlPlaneVIP keeps none' });
  }
}).describe('The MAAS DNS domain and zones of the cluster, and how its API endpoint is made.');
export type MaasClusterSpec = z.infer<typeof MaasClusterSpec>;

/** A Cluster API (v1beta2) FailureDomain, as the cluster status lists them. */
export const MaasClusterFailureDomain = z.object({
  name: z.string().min(1).max(256).describe('The MAAS zone name.'),
  controlPlane: z.boolean().optional().describe('Control-plane machines may be placed here.'),
  attributes: z.record(z.string(), z.string().describe('An attribute value.')).optional().describe('Free-form attributes of the failure domain.'),
}).describe('A failure domain (MAAS zone) of the cluster.');
export type MaasClusterFailureDomain = z.infer<typeof MaasClusterFailureDomain>;

export const MaasClusterStatus = z.object({
  ready: z.boolean().default(false).describe('The cluster infrastructure is ready (Cluster API v1beta1 contract).'),
  initialization: Initialization.optional(),
  network: z.object({
    dnsName: z.string().optional().describe('FQDN of the API server\'s DNS record, e.g. c1-3f9a2b.maas.'),
  }).optional().describe('The cluster\'s network endpoints.'),
  controlPlaneVIP: ControlPlaneVipStatus.optional(),
  failureDomains: z.array(MaasClusterFailureDomain).optional().describe('Failure domains, rebuilt from spec.failureDomains on every reconcile.'),
  conditions: z.array(MaasCondition).optional().describe('Conditions of the cluster.'),
}).describe('The observed state of the cluster, written by the controller.');
export type MaasClusterStatus = z.infer<typeof MaasClusterStatus>;

export const MaasCluster = z.preprocess(pruneNulls, z.object({
  apiVersion: z.literal(MAAS_API_VERSION),
  kind: z.literal(MAAS_CLUSTER_KIND),
  metadata: ObjectMeta,
  spec: MaasClusterSpec,
  status: MaasClusterStatus.optional(),
}));
export type MaasCluster = z.infer<typeof MaasCluster>;
