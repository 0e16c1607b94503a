// MaasCluster spec.controlPlaneVIP and spec.apiServerInterface at admission: what is refused, at
// which field path, and the VIP fixed once reserved or published.
import test from 'ava';
import { validateMaasCluster } from '../../src/api/index.ts';

const cluster = (spec: Record<string, unknown>, status?: Record<string, unknown>) => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasCluster',
  metadata: { name: 'c1', namespace: 'default' },
  spec: { dnsDomain: 'maas', ...spec },
  ...(status ? { status } : {}),
});
const paths = (errors: Array<{ path: string }>) => errors.map((e) => e.path);

test('maas vip validate - a VIP in its subnet, IPv4 or IPv6, with or without address and interface, is valid', (t) => {
  t.deepEqual(validateMaasCluster(cluster({ controlPlaneVIP: { subnet: '10.10.1.0/24', address: '10.10.1.200', interface: 'eno1' } })), []);
  t.deepEqual(validateMaasCluster(cluster({ controlPlaneVIP: { subnet: 'fd00:10::/64', address: 'fd00:10::5' } })), []);
  t.deepEqual(validateMaasCluster(cluster({ controlPlaneVIP: { subnet: '10.10.1.0/24' } })), []);
});

test('maas vip validate - refused with a field path: no subnet, not a CIDR, an address outside it or not an address, a bad interface name', (t) => {
  t.deepEqual(paths(validateMaasCluster(cluster({ controlPlaneVIP: { address: '10.10.1.200' } }))), ['spec.controlPlaneVIP.subnet']);
  const notCidr = validateMaasCluster(cluster({ controlPlaneVIP: { subnet: '10.10.1.0' } }));
  t.deepEqual(paths(notCidr), ['spec.controlPlaneVIP.subnet']);
  t.regex(notCidr[0]?.reason ?? '', /must be a CIDR/);
  const outside = validateMaasCluster(cluster({ controlPlaneVIP: { subnet: '10.10.1.0/24', address: '10.10.2.7' } }));
  t.deepEqual(paths(outside), ['spec.controlPlaneVIP.address']);
  t.is(outside[0]?.reason, 'Invalid value: "10.10.2.7": must be inside subnet 10.10.1.0/24');
  t.deepEqual(paths(validateMaasCluster(cluster({ controlPlaneVIP: { subnet: 'fd00:10::/64', address: '10.10.1.5' } }))), ['spec.controlPlaneVIP.address']);
  t.deepEqual(paths(validateMaasCluster(cluster({ controlPlaneVIP: { subnet: '10.10.1.0/24', address: 'vip' } }))), ['spec.controlPlaneVIP.address']);
  t.deepEqual(paths(validateMaasCluster(cluster({ controlPlaneVIP: { subnet: '10.10.1.0/24', interface: 'a-very-long-interface-name' } }))), ['spec.controlPlaneVIP.interface']);
});

test('maas vip validate - apiServerInterface needs one of name, subnet, tag, and is refused beside a VIP', (t) => {
  t.deepEqual(validateMaasCluster(cluster({ apiServerInterface: { tag: 'api' } })), []);
  t.deepEqual(paths(validateMaasCluster(cluster({ apiServerInterface: {} }))), ['spec.apiServerInterface']);
  const both = validateMaasCluster(cluster({ controlPlaneVIP: { subnet: '10.10.1.0/24' }, apiServerInterface: { name: 'eth1' } }));
  t.deepEqual(paths(both), ['spec.apiServerInterface']);
  t.regex(both[0]?.reason ?? '', /keeps none/);
});

test('maas vip validate - the VIP may be edited until it is reserved or the endpoint published, then never', (t) => {
  const vip = { subnet: '10.10.1.0/24', address: '10.10.1.200' };
  const moved = { subnet: '10.10.1.0/24', address: '10.10.1.201' };
  t.deepEqual(validateMaasCluster(cluster({ controlPlaneVIP: moved }), cluster({ controlPlaneVIP: vip })), []);
  const reserved = validateMaasCluster(cluster({ controlPlaneVIP: moved }), cluster({ controlPlaneVIP: vip }, { ready: true, controlPlaneVIP: { address: '10.10.1.200', subnet: '10.10.1.0/24' } }));
  t.deepEqual(reserved.map((e) => [e.path, e.type]), [['spec.controlPlaneVIP', 'Forbidden']]);
  t.regex(reserved[0]?.reason ?? '', /10\.10\.1\.200 is reserved/);
  const removed = validateMaasCluster(cluster({}), cluster({ controlPlaneVIP: vip }, { ready: true, controlPlaneVIP: { address: '10.10.1.200', subnet: '10.10.1.0/24' } }));
  t.deepEqual(paths(removed), ['spec.controlPlaneVIP']);
  const added = validateMaasCluster(cluster({ controlPlaneVIP: vip, controlPlaneEndpoint: { host: 'c1-abc.maas', port: 6443 } }), cluster({ controlPlaneEndpoint: { host: 'c1-abc.maas', port: 6443 } }));
  t.deepEqual(paths(added), ['spec.controlPlaneVIP']);
  t.regex(added[0]?.reason ?? '', /already published/);
});
