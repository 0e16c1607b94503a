import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { addViewFlags, collect, nodesFrom, nodesView, runView, type CommonFlags } from '../introspect/index.ts';

// `metalfleet nodes`: the members of the cluster and how each is doing.

interface NodesFlags extends CommonFlags {
  node?: string[];
}

export function register(program: Command): void {
  addViewFlags(program
    .command('nodes')
    .description(descriptionOf('nodes'))
    .option('--node <name>', 'only this node (repeat or comma-separate for more)', collect))
    .addHelpText('after', `
Examples:
  metalfleet nodes --nats nats://127.0.0.1:4222
  metalfleet nodes --json
`)
    .action(async (flags: NodesFlags) => {
      await runView(flags, 'metalfleet-nodes', (transport, options) => nodesView(transport, options), nodesFrom(flags.node));
    });
}
