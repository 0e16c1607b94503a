// What kube-apiserver keeps for itself in `default` (pkg/controlplane/reconcilers and the
// "bootstrap-controller"): the `kubernetes` Service on the first IP of the service range, port 443
// named https to the server's own port, and its Endpoints with the server's address (labelled so
// that the EndpointSlice mirroring controller leaves them alone), and the EndpointSlice the
// reconciler writes beside them. Only in strict mode, where
// `default` exists.
import { decodeObject } from './decode.ts';
import type { Registry } from './registry.ts';
import type { Store } from './store.ts';
import { createObject } from './writes.ts';
import type { WriteContext } from './writes.ts';

const NAMESPACE = 'default';
const NAME = 'kubernetes';
// service-ips.ts keeps .1 of 10.96.0.0/12 out of every allocation for it.
const CLUSTER_IP = '10.96.0.1';

export function createMasterService(store: Store, registry: Registry, address: string, port: number): void {
  const ctx = (resource: string): WriteContext => ({ store, ...registry.resolve(resource), namespace: NAMESPACE, dryRun: false, writer: { manager: 'kube-apiserver', apiVersion: resource === 'endpointslices' ? 'discovery.k8s.io/v1' : 'v1' } });
  const write = (resource: string, obj: object): void => {
    const c = ctx(resource);
    createObject(c, decodeObject(c, obj, '', 'Ignore').obj);
  };
  write('services', {
    apiVersion: 'v1', kind: 'Service',
    metadata: { name: NAME, namespace: NAMESPACE, labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: { type: 'ClusterIP', clusterIP: CLUSTER_IP, sessionAffinity: 'None', ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: port }] },
  });
  write('endpoints', {
    apiVersion: 'v1', kind: 'Endpoints',
    metadata: { name: NAME, namespace: NAMESPACE, labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
    subsets: [{ addresses: [{ ip: address }], ports: [{ name: 'https', port, protocol: 'TCP' }] }],
  });
  // endpointSliceFromEndpoints: the same address, ready, under the Service's name label.
  write('endpointslices', {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: { name: NAME, namespace: NAMESPACE, labels: { 'kubernetes.io/service-name': NAME } },
    addressType: 'IPv4',
    endpoints: [{ addresses: [address], conditions: { ready: true } }],
    ports: [{ name: 'https', protocol: 'TCP', port }],
  });
}
