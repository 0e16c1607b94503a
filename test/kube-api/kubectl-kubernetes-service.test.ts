// The `kubernetes` Service and Endpoints in `default` that kube-apiserver keeps for itself
// (pkg/controlplane/reconcilers: the first IP of the service range, port 443 named https to the
// server's own address and port), as kubectl shows them on a fresh cluster.
import test from 'ava';
import { rows, withKubectl } from './kubectl-support.ts';

test('kubectl kubernetes service - `default` has the `kubernetes` Service on the first service IP, port 443 to the server', async (t) => {
  const k = await withKubectl(t);
  const table = rows(await k.ok('get', 'services', '-n', 'default'));
  t.deepEqual(table.map((r) => r.slice(0, 5)), [
    ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)'],
    ['kubernetes', 'ClusterIP', '10.96.0.1', '<none>', '443/TCP'],
  ]);
  const svc = JSON.parse(await k.ok('get', 'service', 'kubernetes', '-n', 'default', '-o', 'json')) as { metadata: { labels: unknown }; spec: unknown; status: unknown };
  t.deepEqual(svc.metadata.labels, { component: 'apiserver', provider: 'kubernetes' });
  t.deepEqual(svc.spec, {
    ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: k.server.port }],
    clusterIP: '10.96.0.1',
    clusterIPs: ['10.96.0.1'],
    type: 'ClusterIP',
    sessionAffinity: 'None',
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
    internalTrafficPolicy: 'Cluster',
  });
  t.deepEqual(svc.status, { loadBalancer: {} });
});

test('kubectl kubernetes service - its Endpoints name the server\'s address and port', async (t) => {
  const k = await withKubectl(t);
  const ep = JSON.parse(await k.ok('get', 'endpoints', 'kubernetes', '-n', 'default', '-o', 'json')) as { metadata: { labels: unknown }; subsets: unknown };
  t.deepEqual(ep.metadata.labels, { 'endpointslice.kubernetes.io/skip-mirror': 'true' });
  t.deepEqual(ep.subsets, [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: k.server.port, protocol: 'TCP' }] }]);
});

test('kubectl kubernetes service - cluster-info names the control plane at the server\'s URL', async (t) => {
  const k = await withKubectl(t);
  t.regex(await k.ok('cluster-info'), new RegExp(`Kubernetes control plane.* is running at .*${k.server.url}`));
});

test('kubectl kubernetes service - its EndpointSlice: describe shows the endpoint, get prints the slice', async (t) => {
  const k = await withKubectl(t);
  t.regex(await k.ok('describe', 'service', 'kubernetes'), new RegExp(`\\nEndpoints:\\s+127\\.0\\.0\\.1:${k.server.port}\\n`));
  const table = rows(await k.ok('get', 'endpointslices', '-n', 'default'));
  t.deepEqual(table.map((r) => r.slice(0, 4)), [['NAME', 'ADDRESSTYPE', 'PORTS', 'ENDPOINTS'], ['kubernetes', 'IPv4', String(k.server.port), '127.0.0.1']]);
  const slice = JSON.parse(await k.ok('get', 'endpointslice', 'kubernetes', '-o', 'json')) as Record<string, unknown> & { metadata: { labels: unknown } };
  t.deepEqual(slice.metadata.labels, { 'kubernetes.io/service-name': 'kubernetes' });
  t.deepEqual([slice.addressType, slice.endpoints, slice.ports], ['IPv4', [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], [{ name: 'https', protocol: 'TCP', port: k.server.port }]]);
});
