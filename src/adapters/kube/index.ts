// The Kubernetes adapter: informers owned by an actor, one ResourceStore over
// their caches, status written through the status subresource, Events, and the RBAC it needs.
export { createKubeAdapter, ADAPTER_ACTOR } from './adapter.ts';
export type { KubeAdapter, KubeAdapterOptions } from './adapter.ts';
export type { InformerStatus } from './adapter-actor.ts';
export { loadKubeConfig } from './kubeconfig.ts';
export type { KubeConfigSource } from './kubeconfig.ts';
export { KubeStore } from './kube-store.ts';
export { OWNER_ANNOTATION, formatOwner, parseOwner } from './owner-fence.ts';
export { adapterCallPermissions } from './kube-client.ts';
export { formatPermission, isDeclared } from './kube-calls.ts';
export type { Permission } from './kube-calls.ts';
export { registerKubeMetrics } from './metrics.ts';
export { DEFAULT_LEASE_TIMING, checkLeaseTiming, kubeLeaseClient, startLeaderElector } from './leader-election.ts';
