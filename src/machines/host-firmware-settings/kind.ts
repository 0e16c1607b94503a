import { HOST_FIRMWARE_SETTINGS_RESOURCE } from '../../api/index.ts';
import { hostNamedCompanion } from '../host-companion.ts';

/**
 * HostFirmwareSettings `<namespace>/<host>`: the BIOS settings a user wants (spec.settings) and
 * those the backend reports (status, written by the host's actor on a firmware read, as BMO's
 * hostfirmwaresettings_controller.go does). A change of its spec wakes the host.
 */
export const HOST_FIRMWARE_SETTINGS_KIND_DEFINITION = hostNamedCompanion('HostFirmwareSettings', HOST_FIRMWARE_SETTINGS_RESOURCE, true);
