export { COMMANDS, commandNamed, descriptionOf, registerAll } from './catalog.ts';
export type { CommandEntry, RegisterCommand } from './catalog.ts';
