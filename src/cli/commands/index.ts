import type { Command } from 'commander';

export type RegisterCommand = (program: Command) => void;

// Add a command by importing its module's register function here.
export const commands: readonly RegisterCommand[] = [];
