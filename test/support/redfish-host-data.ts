import type { OpResult } from '../../src/machines/bmh/index.ts';
import type { HostData } from '../../src/ports/index.ts';

/**
 * A BareMetalHost's data as the provisioner takes it: namespace `lab`, a Redfish BMC named after
 * the host, UEFI, cleaning off, test credentials. `spec` adds to (or overrides) those fields.
 */
export function redfishHostData(name: string, bootMACAddress: string, spec: Partial<HostData['spec']> = {}): HostData {
  return {
    key: `lab/${name}`, namespace: 'lab', name, uid: `uid-${name}`, provisionerId: '',
    spec: {
      online: true, bootMode: 'UEFI', automatedCleaningMode: 'disabled',
      bmc: { address: `redfish://192.168.111.1:8000/redfish/v1/Systems/${name}`, credentialsName: 'bmc' },
      bootMACAddress,
      ...spec,
    },
    credentials: { username: 'admin', password: `${name}-test-password` },
  };
}

/** Calls again while continuing (as the host machine would); the first other answer. */
export async function settled(op: () => Promise<OpResult>): Promise<OpResult> {
  for (let i = 0; i < 1000; i++) {
    const r = await op();
    if (r.kind !== 'continuing') return r;
    await new Promise((resolve) => setTimeout(resolve, r.afterMs));
  }
  throw new Error('still continuing after 1000 polls');
}
