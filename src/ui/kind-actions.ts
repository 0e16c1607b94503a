// The page's command buttons per kind: a MaasMachine takes only its own commands (power, pause,
// release), so its page offers no reboot, detach, attach, inspect or service that would be refused.
import { MAAS_MACHINE_COMMANDS } from '../cluster/commands/index.ts';
import type { HostKind } from '../bus/messages/introspect.ts';
import { UI_ACTIONS, type UiAction } from './command-gate.ts';

const ALL = Object.keys(UI_ACTIONS) as UiAction[];

export const KIND_ACTIONS: Readonly<Record<HostKind, readonly UiAction[]>> = {
  // Every page action but release is a BareMetalHost command (src/machines/bmh/kind.ts); a
  // BareMetalHost is given back by removing spec.image, so its node refuses release.
  BareMetalHost: ALL.filter((a) => UI_ACTIONS[a] !== 'release'),
  MaasMachine: ALL.filter((a) => MAAS_MACHINE_COMMANDS.includes(UI_ACTIONS[a])),
};
