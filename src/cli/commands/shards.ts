import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { addViewFlags, collect, nodesFrom, runView, shardsView, type CommonFlags } from '../introspect/index.ts';

// `metalfleet shards`: which node owns each shard, under which lease epoch, since when.

interface ShardsFlags extends CommonFlags {
  node?: string[];
}

export function register(program: Command): void {
  addViewFlags(program
    .command('shards')
    .description(descriptionOf('shards'))
    .option('--node <name>', 'only shards of this node (repeat or comma-separate for more)', collect))
    .addHelpText('after', `
A shard listed twice is being handed over (the higher epoch is the owner); one not listed has no
owner right now (its lease expired and no node took it yet).

Examples:
  metalfleet shards --nats nats://127.0.0.1:4222
  metalfleet shards --node a -o yaml
`)
    .action(async (flags: ShardsFlags) => {
      await runView(flags, 'metalfleet-shards', (transport, options) => shardsView(transport, options), nodesFrom(flags.node));
    });
}
