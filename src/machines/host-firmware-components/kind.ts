import { HOST_FIRMWARE_COMPONENTS_RESOURCE } from '../../api/index.ts';
import { hostNamedCompanion } from '../host-companion.ts';

/**
 * HostFirmwareComponents `<namespace>/<host>`: firmware updates a user asks for (spec.updates)
 * and the components the backend reports (status.components, written by the host's actor). A
 * change of its spec wakes the host.
 */
export const HOST_FIRMWARE_COMPONENTS_KIND_DEFINITION = hostNamedCompanion('HostFirmwareComponents', HOST_FIRMWARE_COMPONENTS_RESOURCE, true);
