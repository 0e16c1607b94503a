import type { Command } from 'commander';
import { register as registerApply } from './apply.ts';
import { register as registerBmc } from './bmc.ts';
import { register as registerDelete } from './delete.ts';
import { register as registerDemo } from './demo.ts';
import { register as registerFixtureServer } from './fixture-server.ts';
import { register as registerHost } from './host.ts';
import { register as registerNode } from './node.ts';
import { register as registerSim } from './sim.ts';
import { register as registerValidate } from './validate.ts';
import { register as registerActors } from './actors.ts';
import { register as registerCapacity } from './capacity.ts';
import { register as registerHosts } from './hosts.ts';
import { register as registerInspect } from './inspect.ts';
import { register as registerNodes } from './nodes.ts';
import { register as registerShards } from './shards.ts';
import { register as registerTop } from './top.ts';
import { register as registerWebhook } from './webhook.ts';

export type RegisterCommand = (program: Command) => void;

// Add a command by importing its module's register function here.
export const commands: readonly RegisterCommand[] = [registerDemo, registerValidate, registerBmc, registerSim, registerFixtureServer, registerApply, registerDelete, registerNode, registerHost, registerHosts, registerActors, registerShards, registerCapacity, registerInspect, registerNodes, registerTop, registerWebhook];
