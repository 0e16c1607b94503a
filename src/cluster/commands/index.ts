// Host commands: what a command asks of a host (pure) and applying it through the host store.
export { intentFor, PAUSED_BY_COMMAND } from './command-intent.ts';
export type { CommandIntent } from './command-intent.ts';
export { handleCommand } from './handle-command.ts';
export type { CommandOutcome } from './handle-command.ts';
export { maasIntentFor, MAAS_MACHINE_COMMANDS } from './maas-command-intent.ts';
export type { MaasCommandIntent } from './maas-command-intent.ts';
