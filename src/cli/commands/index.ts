import type { Command } from 'commander';
import { register as registerBmc } from './bmc.ts';
import { register as registerDemo } from './demo.ts';
import { register as registerSim } from './sim.ts';
import { register as registerValidate } from './validate.ts';

export type RegisterCommand = (program: Command) => void;

// Add a command by importing its module's register function here.
export const commands: readonly RegisterCommand[] = [registerDemo, registerValidate, registerBmc, registerSim];
