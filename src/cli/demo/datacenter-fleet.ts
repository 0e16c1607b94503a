import type { VirtualDatacenter } from '../../sim/datacenter/index.ts';
import { DEMO_NAMESPACE, demoHost } from './generate.ts';

// One BareMetalHost per virtual-datacenter server, as an operator would write them for a rack:
// its BMC address, a Secret with its own credentials, its first NIC as the boot MAC, and the
// datacenter's os.img with its sha256.
export function datacenterFleet(dc: Pick<VirtualDatacenter, 'systems' | 'images'>): unknown[] {
  const image = { url: dc.images.urlOf('os.img'), checksum: dc.images.checksum('os.img', 'sha256'), checksumType: 'sha256', format: 'raw' };
  return dc.systems.flatMap((system, i) => {
    const name = `server-${String(i).padStart(5, '0')}`;
    const secret = `${name}-bmc`;
    return [
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: secret, namespace: DEMO_NAMESPACE }, type: 'Opaque', stringData: { username: system.username, password: system.password } },
      // Ironic 21.4 inspects out of band with redfish; its agent inspection needs ironic-inspector.
      demoHost(name, { address: system.address, credentialsName: secret }, system.macs[0], { inspectionMode: 'fast', image }),
    ];
  });
}
