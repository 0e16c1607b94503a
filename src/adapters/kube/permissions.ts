// Every Kubernetes API call the adapter makes, as the RBAC permission it needs: one entry per
// resource. deploy/rbac/cluster-role.yaml is generated from this list (`npm run gen:crds`) and
// test/deploy checks the two agree, so a new call means a new verb here, then regenerate.

export type KubeVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface KubePermission {
  /** "" for the core group. */
  readonly apiGroup: string;
  /** A resource or `resource/subresource`. */
  readonly resource: string;
  readonly verbs: readonly KubeVerb[];
}

/** Informers list and watch; one object is read back only after a conflict. */
const READ = ['get', 'list', 'watch'] as const;
/** Finalizers and annotations change by merge patch on the main resource, never by PUT. */
const READ_PATCH = [...READ, 'patch'] as const;
/** Status is written through the status subresource only, by merge patch. */
const STATUS = ['get', 'patch'] as const;
/** CAPI objects and Secrets come from informers only. */
const WATCH = ['list', 'watch'] as const;

/** What BMO's manager role grants on the companion kinds it creates and keeps for each host. */
const COMPANION = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] as const;
/** Status through the subresource, by update or merge patch, as BMO's role has it. */
const COMPANION_STATUS = ['get', 'update', 'patch'] as const;

// BMO's companion kinds of BareMetalHost (issue 31), with the verbs of BMO's manager-role
// (config/base/rbac/role.yaml): HardwareData, FirmwareSchema, HostFirmwareSettings and
// HostFirmwareComponents are created per host, kept in step and deleted with it; a user writes
// HostUpdatePolicy, which the controller reads, updates and deletes (no create or patch, as BMO).
// BMO also grants firmwareschemas/status and hardware/finalizers, which no CRD serves (the
// FirmwareSchema CRD has no status subresource; "hardware" is no resource): left out.
export const COMPANION_PERMISSIONS: readonly KubePermission[] = [
  { apiGroup: 'metal3.io', resource: 'hardwaredata', verbs: COMPANION },
  { apiGroup: 'metal3.io', resource: 'firmwareschemas', verbs: COMPANION },
  { apiGroup: 'metal3.io', resource: 'hostfirmwaresettings', verbs: COMPANION },
  { apiGroup: 'metal3.io', resource: 'hostfirmwaresettings/status', verbs: COMPANION_STATUS },
  { apiGroup: 'metal3.io', resource: 'hostfirmwarecomponents', verbs: COMPANION },
  { apiGroup: 'metal3.io', resource: 'hostfirmwarecomponents/status', verbs: COMPANION_STATUS },
  // An owner reference with blockOwnerDeletion on a HostFirmwareComponents needs it (OwnerReferencesPermissionEnforcement).
  { apiGroup: 'metal3.io', resource: 'hostfirmwarecomponents/finalizers', verbs: ['update'] },
  { apiGroup: 'metal3.io', resource: 'hostupdatepolicies', verbs: ['get', 'list', 'watch', 'update', 'delete'] },
];

export const ADAPTER_PERMISSIONS: readonly KubePermission[] = [
  // `metalfleet delete` and host commands against Kubernetes: ResourceStore.requestDelete is a DELETE.
  { apiGroup: 'metal3.io', resource: 'baremetalhosts', verbs: [...READ_PATCH, 'delete'] },
  { apiGroup: 'metal3.io', resource: 'baremetalhosts/status', verbs: STATUS },
  ...COMPANION_PERMISSIONS,
  { apiGroup: 'infrastructure.cluster.x-k8s.io', resource: 'maasmachines', verbs: READ_PATCH },
  { apiGroup: 'infrastructure.cluster.x-k8s.io', resource: 'maasmachines/status', verbs: STATUS },
  { apiGroup: 'infrastructure.cluster.x-k8s.io', resource: 'maasclusters', verbs: READ_PATCH },
  { apiGroup: 'infrastructure.cluster.x-k8s.io', resource: 'maasclusters/status', verbs: STATUS },
  // The Machine and Cluster a MaasMachine or MaasCluster belongs to (reference/capmaas.md §2.2-2.3).
  { apiGroup: 'cluster.x-k8s.io', resource: 'machines', verbs: WATCH },
  { apiGroup: 'cluster.x-k8s.io', resource: 'clusters', verbs: WATCH },
  // BMC credentials, user data and network data: read, and BMC Secrets claimed as BMO claims
  // them (a label and a finalizer, by merge patch; never their data).
  { apiGroup: '', resource: 'secrets', verbs: [...WATCH, 'patch'] },
  { apiGroup: '', resource: 'events', verbs: ['create', 'patch'] },
  // Leader election without NATS: the one Lease the replicas share.
  { apiGroup: 'coordination.k8s.io', resource: 'leases', verbs: ['get', 'create', 'update'] },
];
