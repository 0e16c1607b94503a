import { createHash } from 'node:crypto';
import { z } from 'zod';

// A machine's power parameters as MAAS stores them (Node.get_power_parameters: the BMC's merged
// with the machine's own) for the power types the simulator knows. They hold the BMC password, so
// only GET op=power_parameters (admin) ever returns them: never the machine JSON, never a log.

export const PowerParametersSchema = z.record(z.string(), z.union([z.string(), z.array(z.string())]));
export type PowerParameters = z.infer<typeof PowerParametersSchema>;

interface PowerOwner {
  readonly systemId: string;
  readonly hostname: string;
  readonly powerType: string;
  /** What the seed gave, over the defaults. */
  readonly powerParameters?: PowerParameters;
}

// Stable per machine, so a saved and reloaded fleet keeps its BMCs.
function derived(systemId: string): { address: string; password: string } {
  const digest = createHash('sha256').update(`bmc/${systemId}`).digest();
  return { address: `10.250.${digest[0] ?? 0}.${1 + ((digest[1] ?? 0) % 254)}`, password: digest.subarray(2, 14).toString('base64url') };
}

// What commissioning's BMC auto-configuration leaves (a "maas" user with a generated password)
// and the power form's defaults for each driver.
function defaults(m: PowerOwner): PowerParameters {
  const { address, password } = derived(m.systemId);
  switch (m.powerType) {
    case 'ipmi':
      return {
        power_driver: 'LAN_2_0',
        power_boot_type: 'auto',
        power_address: address,
        power_user: 'maas',
        power_pass: password,
        k_g: '',
        cipher_suite_id: '3',
        privilege_level: 'ADMIN',
        workaround_flags: ['opensesspriv'],
        mac_address: '',
      };
    case 'redfish':
      return { power_address: address, power_user: 'maas', power_pass: password, node_id: '' };
    case 'virsh':
      return { power_address: 'qemu+ssh://maas@10.250.0.1/system', power_id: m.hostname, power_pass: '' };
    case 'lxd':
      return { power_address: 'https://10.250.0.1:8443', instance_name: m.hostname, project: 'default', password: '' };
    default:
      return {};
  }
}

export function powerParameters(m: PowerOwner): PowerParameters {
  return { ...defaults(m), ...m.powerParameters };
}
