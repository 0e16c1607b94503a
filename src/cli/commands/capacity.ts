import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { addViewFlags, capacityView, runView, type CommonFlags } from '../introspect/index.ts';

// `metalfleet capacity`: the capacity broker's pools, from the node that holds the broker lease.

export function register(program: Command): void {
  addViewFlags(program
    .command('capacity')
    .description(descriptionOf('capacity')))
    .addHelpText('after', `
Only the node holding the capacity broker lease has pools; the others answer with none.

Examples:
  metalfleet capacity --nats nats://127.0.0.1:4222
  metalfleet capacity --json | jq '.replies[] | select(.value.broker) | .value.pools[].waiting'
`)
    .action(async (flags: CommonFlags) => {
      await runView(flags, 'metalfleet-capacity', (transport, options) => capacityView(transport, options));
    });
}
