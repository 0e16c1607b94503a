import type { BareMetalHost } from '../../api/index.ts';
import { DEMO_HOST_NAMES } from '../../adapters/fixture/index.ts';

export const DEMO_NAMESPACE = 'metal3';
export const DEMO_SECRET = 'demo-bmc-credentials';

// A fleet that exercises the whole lifecycle: most hosts get an image and end provisioned, some
// have none (they stop at available), a few are externally provisioned, and the demo-* names
// show the failure and stuck scenarios of the anchor's demo provisioner.
export interface FleetOptions {
  readonly scenarios?: boolean;
  // Spread hosts over several backends by a label, round robin.
  readonly routeLabel?: { readonly key: string; readonly values: readonly string[] } | undefined;
}

export function generateFleet(count: number, o: FleetOptions = {}): unknown[] {
  const hosts: BareMetalHost[] = [];
  const scenarios = o.scenarios ?? true ? DEMO_HOST_NAMES.slice(0, Math.min(DEMO_HOST_NAMES.length, Math.max(0, count - 1))) : [];
  for (const name of scenarios) hosts.push(host(name, hosts.length, 'image'));
  for (let i = 0; hosts.length < count; i++) {
    const kind = i % 20 === 7 ? 'none' : i % 50 === 13 ? 'external' : 'image';
    hosts.push(host(`server-${String(i).padStart(5, '0')}`, hosts.length, kind));
  }
  if (o.routeLabel && o.routeLabel.values.length > 0) {
    const { key, values } = o.routeLabel;
    hosts.forEach((h, i) => {
      h.metadata.labels = { ...h.metadata.labels, [key]: values[i % values.length] ?? '' };
    });
  }
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: DEMO_SECRET, namespace: DEMO_NAMESPACE },
    type: 'Opaque',
    stringData: { username: 'admin', password: 'demo-password' },
  };
  return [secret, ...hosts];
}

function host(name: string, index: number, kind: 'image' | 'none' | 'external'): BareMetalHost {
  const octet3 = Math.floor(index / 250) % 250;
  const octet4 = (index % 250) + 1;
  const mac = `52:54:00:${hex(index >> 16)}:${hex(index >> 8)}:${hex(index)}`;
  // A mix of BMC kinds; virtual-media hosts are exempt from the capacity limit, as in BMO.
  const ip = `10.10.${octet3}.${octet4}`;
  const address = [`redfish://${ip}/redfish/v1/Systems/1`, `ipmi://${ip}`, `idrac-redfish://${ip}/redfish/v1/Systems/System.Embedded.1`, `redfish-virtualmedia://${ip}/redfish/v1/Systems/1`][index % 4] ?? '';
  return demoHost(name, { address, credentialsName: DEMO_SECRET }, mac, {
    ...(kind === 'external' ? { externallyProvisioned: true } : {}),
    ...(kind !== 'none' ? { image: { url: 'http://images.example/ubuntu-24.04.qcow2', checksum: 'http://images.example/ubuntu-24.04.qcow2.sha256sum', checksumType: 'sha256', format: 'qcow2' } } : {}),
  });
}

/** A demo BareMetalHost: labelled as the demo's, online, UEFI, cleaned of metadata on deprovisioning. */
export function demoHost(name: string, bmc: { address: string; credentialsName: string }, bootMACAddress: string | undefined, spec: Record<string, unknown>): BareMetalHost {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name, namespace: DEMO_NAMESPACE, labels: { 'metalfleet.io/demo': 'true' } },
    spec: { online: true, bootMode: 'UEFI', automatedCleaningMode: 'metadata', bmc, bootMACAddress, ...spec },
  } as BareMetalHost;
}

function hex(n: number): string {
  return (n & 0xff).toString(16).padStart(2, '0');
}
