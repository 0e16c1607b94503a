import { HOST_UPDATE_POLICY_RESOURCE } from '../../api/index.ts';
import { hostNamedCompanion } from '../host-companion.ts';

/**
 * HostUpdatePolicy `<namespace>/<host>`: whether firmware settings and updates may be applied to
 * the provisioned host on its next reboot (spec.firmwareSettings/firmwareUpdates 'onReboot').
 * Only users write it; a change wakes the host.
 */
export const HOST_UPDATE_POLICY_KIND_DEFINITION = hostNamedCompanion('HostUpdatePolicy', HOST_UPDATE_POLICY_RESOURCE, true);
