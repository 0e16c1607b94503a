// MAAS resources as CAPMAAS defines them (reference/capmaas.md §1): MaasCluster, MaasMachine and
// MaasMachineTemplate (infrastructure.cluster.x-k8s.io/v1beta1), the Cluster API objects their
// reconciles read, the providerID format, image splitting and admission rules.
export {
  MAAS_API_GROUP, MAAS_API_VERSION, CLUSTER_LABEL, CONTROL_PLANE_LABEL, MAAS_CLUSTER_KIND, MAAS_MACHINE_KIND, MAAS_MACHINE_TEMPLATE_KIND, MAAS_KINDS,
  MAAS_CLUSTER_FINALIZER, MAAS_MACHINE_FINALIZER, MAAS_HOST_EVACUATION_FINALIZER,
  MAAS_CONDITIONS, MACHINE_DEPLOYED_REASONS, DNS_ATTACHED_REASONS, LOAD_BALANCER_READY_REASONS,
  API_SERVER_AVAILABLE_REASONS, LXD_READY_REASONS,
  MAAS_MACHINE_STATES, MAAS_RUNNING_STATES, MAAS_OPERATIONAL_STATES, MAAS_KNOWN_STATES,
} from './constants.ts';
export type {
  MaasKind, MaasConditionType, MachineDeployedReason, DnsAttachedReason, LoadBalancerReadyReason,
  ApiServerAvailableReason, LxdReadyReason, MaasMachineStateName,
} from './constants.ts';
export {
  MaasCluster, MaasClusterSpec, MaasClusterStatus, MaasClusterFailureDomain, MaasLxdConfig, ApiEndpoint,
  MaasMachine, MaasMachineSpec, MaasMachineStatus, MaasMachineLxdConfig, MaasVmConfig, MachineAddress, MACHINE_ADDRESS_TYPES,
  MaasMachineTemplate, MaasMachineTemplateSpec, MaasStaticAddress,
} from './schema.ts';
export {
  CAPI_API_VERSIONS, CAPI_MACHINE_KIND, CAPI_CLUSTER_KIND, CAPI_CLUSTER_NAME_LABEL, CAPI_CONTROL_PLANE_LABEL,
  CAPI_PAUSED_ANNOTATION, DEFAULT_API_SERVER_PORT, CapiObjectReference, CapiMachine, CapiCluster,
  isControlPlaneMachine, isClusterInfrastructureProvisioned, isCapiPaused, apiServerPortOf,
} from './capi.ts';
export { MAAS_PROVIDER, ProviderIdError, formatProviderId, parseProviderId } from './provider-id.ts';
export type { ProviderIdErrorCode, ProviderIdParseResult } from './provider-id.ts';
export { CUSTOM_OSYSTEM, imageName, imageOf, splitImage } from './image.ts';
export type { ImageFields, MaasImage } from './image.ts';
export { pruneNulls } from './prune-nulls.ts';
export { ApiServerInterface, ControlPlaneVip, ControlPlaneVipStatus } from './control-plane-vip.ts';
export { cidrContains, ipVersion, parseCidr } from './ip-cidr.ts';
export type { Cidr } from './ip-cidr.ts';
export { validateMaasCluster, validateMaasMachine, validateMaasMachineTemplate } from './validate.ts';
export { validateObject, validatedKindOf } from './validate-object.ts';
export type { ValidatedKind, ValidationResult } from './validate-object.ts';
