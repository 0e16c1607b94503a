// Names CAPMAAS (spectrocloud/cluster-api-provider-maas, api/v1beta1) puts on the wire: API
// version, kinds, finalizers, condition types and reasons, MAAS machine state sets
// (reference/capmaas.md §1, §2.3). The values are CAPMAAS's strings, so objects written by either
// controller read the same.

export const MAAS_API_GROUP = 'infrastructure.cluster.x-k8s.io';
export const MAAS_API_VERSION = 'infrastructure.cluster.x-k8s.io/v1beta1';

/** The Cluster API labels a MaasMachine's Machine carries: its cluster, and control-plane membership. */
export const CLUSTER_LABEL = 'cluster.x-k8s.io/cluster-name';
export const CONTROL_PLANE_LABEL = 'cluster.x-k8s.io/control-plane';

export const MAAS_CLUSTER_KIND = 'MaasCluster';
export const MAAS_MACHINE_KIND = 'MaasMachine';
export const MAAS_MACHINE_TEMPLATE_KIND = 'MaasMachineTemplate';
export const MAAS_KINDS = [MAAS_CLUSTER_KIND, MAAS_MACHINE_KIND, MAAS_MACHINE_TEMPLATE_KIND] as const;
export type MaasKind = (typeof MAAS_KINDS)[number];

export const MAAS_CLUSTER_FINALIZER = 'maascluster.infrastructure.cluster.x-k8s.io';
export const MAAS_MACHINE_FINALIZER = 'maasmachine.infrastructure.cluster.x-k8s.io';
/** Put on HCP LXD host machines in addition to the machine finalizer. */
export const MAAS_HOST_EVACUATION_FINALIZER = 'maas.lxd.io/host-evacuation';

/** Condition types on MaasMachine (MachineDeployed, DNSAttached) and MaasCluster (the rest). */
export const MAAS_CONDITIONS = {
  MachineDeployed: 'MachineDeployed',
  /** Control-plane machines only. */
  DNSAttached: 'DNSAttached',
  /** CAPMAAS's Go constant is `DNSReadyCondition`; the string on the wire is this one. */
  LoadBalancerReady: 'LoadBalancerReady',
  APIServerAvailable: 'APIServerAvailable',
  LXDReady: 'LXDReady',
  /** The summary: MachineDeployed (+ DNSAttached on control planes); LoadBalancerReady + APIServerAvailable. */
  Ready: 'Ready',
} as const;
export type MaasConditionType = (typeof MAAS_CONDITIONS)[keyof typeof MAAS_CONDITIONS];

// Two of CAPMAAS's reason strings end in "Reason" (the Go constant's value repeats its name);
// they are kept so conditions compare equal with ones CAPMAAS wrote.
export const MACHINE_DEPLOYED_REASONS = {
  MachineDeployed: 'MachineDeployed',
  WaitingForClusterInfrastructure: 'WaitingForClusterInfrastructure',
  WaitingForBootstrapData: 'WaitingForBootstrapData',
  MachineDeployStarted: 'MachineDeployStartedReason',
  MachineDeploying: 'MachineDeploying',
  MachineDeployFailed: 'MachineDeployFailed',
  MachineTerminated: 'MachineTerminatedReason',
  MachinePoweredOff: 'MachinePoweredOff',
  MachineStateUndefined: 'MachineStateUndefined',
  MachineNotFound: 'MachineNotFound',
  Deleted: 'Deleted',
} as const;
export type MachineDeployedReason = (typeof MACHINE_DEPLOYED_REASONS)[keyof typeof MACHINE_DEPLOYED_REASONS];

export const DNS_ATTACHED_REASONS = {
  DNSAttached: 'DNSAttached',
  DNSAttachPending: 'DNSAttachPending',
  DNSDetachPending: 'DNSDetachPending',
  /** metalfleet: no interface of a control-plane machine matches spec.apiServerInterface. */
  NoMatchingInterface: 'NoMatchingInterface',
} as const;
export type DnsAttachedReason = (typeof DNS_ATTACHED_REASONS)[keyof typeof DNS_ATTACHED_REASONS];

export const LOAD_BALANCER_READY_REASONS = {
  LoadBalancerReady: 'LoadBalancerReady',
  LoadBalancerFailed: 'LoadBalancerFailed',
  WaitForDNSName: 'WaitForDNSName',
  /** metalfleet: the control-plane VIP is being reserved in MAAS. */
  WaitForVIP: 'WaitForVIP',
} as const;
export type LoadBalancerReadyReason = (typeof LOAD_BALANCER_READY_REASONS)[keyof typeof LOAD_BALANCER_READY_REASONS];

export const API_SERVER_AVAILABLE_REASONS = {
  APIServerAvailable: 'APIServerAvailable',
  APIServerNotReady: 'APIServerNotReady',
} as const;
export type ApiServerAvailableReason = (typeof API_SERVER_AVAILABLE_REASONS)[keyof typeof API_SERVER_AVAILABLE_REASONS];

export const LXD_READY_REASONS = {
  LXDReady: 'LXDReady',
  LXDFailed: 'LXDFailed',
  LXDSetupPending: 'LXDSetupPending',
} as const;
export type LxdReadyReason = (typeof LXD_READY_REASONS)[keyof typeof LXD_READY_REASONS];

/** The MAAS `status_name` values CAPMAAS names (api/v1beta1/types.go). */
export const MAAS_MACHINE_STATES = {
  New: 'New',
  Ready: 'Ready',
  Allocated: 'Allocated',
  Deploying: 'Deploying',
  Deployed: 'Deployed',
  Releasing: 'Releasing',
  DiskErasing: 'Disk erasing',
} as const;
export type MaasMachineStateName = (typeof MAAS_MACHINE_STATES)[keyof typeof MAAS_MACHINE_STATES];

const S = MAAS_MACHINE_STATES;
/** Running or about to be: Deploying, Deployed. */
export const MAAS_RUNNING_STATES: ReadonlySet<string> = new Set([S.Deploying, S.Deployed]);
/** Running, or able to return to running with every MAAS operation available: Running + Allocated. */
export const MAAS_OPERATIONAL_STATES: ReadonlySet<string> = new Set([...MAAS_RUNNING_STATES, S.Allocated]);
/** Every state the MaasMachine controller has a case for; anything else is MachineStateUndefined. */
export const MAAS_KNOWN_STATES: ReadonlySet<string> = new Set([...MAAS_OPERATIONAL_STATES, S.DiskErasing, S.Releasing, S.Ready, S.New]);
