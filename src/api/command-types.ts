// The commands `metalfleet host` (and any NATS client) can send, by name. Here, not beside the
// wire schema (bus/messages/command.ts), because each kind declares which of them it takes
// (machines/<kind>/kind.ts) and machines import only src/api.
export const HOST_COMMAND_TYPES = [
  'powerOn', 'powerOff', 'reboot', 'inspect', 'reprovision', 'service', 'pause', 'unpause', 'detach', 'attach', 'delete', 'release',
] as const;
export type HostCommandName = (typeof HOST_COMMAND_TYPES)[number];
