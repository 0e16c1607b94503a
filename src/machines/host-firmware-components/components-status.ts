import type { FirmwareComponentStatus, HostFirmwareComponents, HostFirmwareComponentsStatus } from '../../api/index.ts';
import { deepEqual } from '../../api/index.ts';

// A HostFirmwareComponents' status after a firmware read (BMO's hostfirmwarecomponents_controller.go
// updateHostFirmware): the components the backend lists, written when they changed, with
// lastUpdated the time of the write. What else it keeps (updates applied, conditions) stays.

/** The new status, or null when the components are what it holds. `now`: RFC 3339. */
export function componentsStatus(hfc: HostFirmwareComponents, components: readonly FirmwareComponentStatus[], now: string): HostFirmwareComponentsStatus | null {
  if (deepEqual(hfc.status?.components ?? [], components)) return null;
  return { ...hfc.status, components: [...components], lastUpdated: now };
}
