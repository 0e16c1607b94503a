import type { BackendRequestCount, MaasDriver, Provisioner } from '../../ports/index.ts';

// The node holds its Provisioner and, with MAAS kinds, its MAAS driver; each that reports its
// requests (Ironic, routed over several Ironics, MAAS) feeds metalfleet_backend_requests_total and
// metalfleet_backend_requests_withheld_total, any other reports none.
export function backendRequestsOf(provisioner: Provisioner, maas?: Pick<MaasDriver, 'requests'>): () => readonly BackendRequestCount[] {
  if (!maas?.requests) return () => provisioner.requests?.() ?? [];
  const fromMaas = maas.requests.bind(maas);
  return () => [...(provisioner.requests?.() ?? []), ...fromMaas()];
}
