import { HARDWARE_DATA_RESOURCE } from '../../api/index.ts';
import { hostNamedCompanion } from '../host-companion.ts';

/**
 * HardwareData `<namespace>/<host>`: what inspection found (spec.hardware), written by the host's
 * actor as BMO's inspection does (baremetalhost_controller.go actionInspecting), and deleted with
 * the host. Nobody else writes it, so its changes wake nobody.
 */
export const HARDWARE_DATA_KIND_DEFINITION = hostNamedCompanion('HardwareData', HARDWARE_DATA_RESOURCE, false);
