import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { CliError } from '../cli-error.ts';
import { actorsView, addViewFlags, collect, nodesFrom, runView, type CommonFlags } from '../introspect/index.ts';

// `metalfleet actors`: every actor of every node with its mailbox, for finding a stuck one.

interface ActorsFlags extends CommonFlags {
  node?: string[];
  tree?: boolean;
  prefix?: string;
}

export function register(program: Command): void {
  addViewFlags(program
    .command('actors')
    .description(descriptionOf('actors'))
    .option('--node <name>', 'only this node (repeat or comma-separate for more)', collect)
    .option('--prefix <path>', 'only actors whose path starts with this')
    .option('--tree', 'indent each actor under its parent'))
    .addHelpText('after', `
Examples:
  metalfleet actors --nats nats://127.0.0.1:4222 --tree
  metalfleet actors --node a --prefix /shard-manager
  metalfleet actors --json | jq '[.replies[].value.actors[] | select(.mailboxDepth > 10)]'
`)
    .action(async (flags: ActorsFlags) => {
      const nodes = nodesFrom(flags.node);
      // Every path starts with "/": without it the prefix matched nothing and read as "no actors".
      if (flags.prefix !== undefined && flags.prefix !== '' && !flags.prefix.startsWith('/')) {
        throw new CliError(`--prefix: actor paths start with "/": ${JSON.stringify(flags.prefix)} matches none; did you mean /${flags.prefix}?`, 2);
      }
      await runView(flags, 'metalfleet-actors', (transport, options) => actorsView(transport, {
        ...(flags.tree ? { tree: true } : {}),
        ...(flags.prefix !== undefined ? { prefix: flags.prefix } : {}),
      }, options), nodes);
    });
}
