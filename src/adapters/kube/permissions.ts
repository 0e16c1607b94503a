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

export const ADAPTER_PERMISSIONS: readonly KubePermission[] = [
  // `metalfleet delete` and host commands against Kubernetes: ResourceStore.requestDelete is a DELETE.
  { apiGroup: 'metal3.io', resource: 'baremetalhosts', verbs: [...READ_PATCH, 'delete'] },
  { apiGroup: 'metal3.io', resource: 'baremetalhosts/status', verbs: STATUS },
  { apiGroup: 'infrastructure.cluster.x-k8s.io', resource: 'maasmachines', verbs: READ_PATCH },
  { apiGroup: 'infrastructure.cluster.x-k8s.io', resource: 'maasmachines/status', verbs: STATUS },
  { apiGroup: 'infrastructure.cluster.x-k8s.io', resource: 'maasclusters', verbs: READ_PATCH },
  { apiGroup: 'infrastructure.cluster.x-k8s.io', resource: 'maasclusters/status', verbs: STATUS },
  // The Machine and Cluster a MaasMachine or MaasCluster belongs to (reference/capmaas.md §2.2-2.3).
  { apiGroup: 'cluster.x-k8s.io', resource: 'machines', verbs: WATCH },
  { apiGroup: 'cluster.x-k8s.io', resource: 'clusters', verbs: WATCH },
  // A host's companions, as BMO's controllers use them: HardwareData created after inspection
  // and deleted with its host, a FirmwareSchema created or shared, HostFirmwareSettings created
  // if absent, their and HostFirmwareComponents' status written; HostUpdatePolicy only read.
  { apiGroup: 'metal3.io', resource: 'hardwaredata', verbs: [...READ_PATCH, 'create', 'delete'] },
  { apiGroup: 'metal3.io', resource: 'firmwareschemas', verbs: [...READ_PATCH, 'create'] },
  { apiGroup: 'metal3.io', resource: 'hostfirmwaresettings', verbs: [...READ_PATCH, 'create'] },
  { apiGroup: 'metal3.io', resource: 'hostfirmwaresettings/status', verbs: STATUS },
  { apiGroup: 'metal3.io', resource: 'hostfirmwarecomponents', verbs: READ_PATCH },
  { apiGroup: 'metal3.io', resource: 'hostfirmwarecomponents/status', verbs: STATUS },
  { apiGroup: 'metal3.io', resource: 'hostupdatepolicies', verbs: WATCH },
  // BMC credentials, user data and network data: read, and BMC Secrets claimed as BMO claims
  // them (a label and a finalizer, by merge patch; never their data).
  { apiGroup: '', resource: 'secrets', verbs: [...WATCH, 'patch'] },
  { apiGroup: '', resource: 'events', verbs: ['create', 'patch'] },
  // Leader election without NATS: the one Lease the replicas share.
  { apiGroup: 'coordination.k8s.io', resource: 'leases', verbs: ['get', 'create', 'update'] },
];
