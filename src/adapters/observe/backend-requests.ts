import type { BackendRequestCount, Provisioner } from '../../ports/index.ts';

// The node only holds its Provisioner; one that reports its requests (Ironic, routed over
// several Ironics) feeds metalfleet_backend_requests_total, any other reports none.
export function backendRequestsOf(provisioner: Provisioner): () => readonly BackendRequestCount[] {
  return () => provisioner.requests?.() ?? [];
}
