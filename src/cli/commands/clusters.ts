import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { addViewFlags, clustersView, collect, nodesFrom, runView, type CommonFlags } from '../introspect/index.ts';

// `metalfleet clusters`: the MaasClusters each node keeps, their DNS record and machines.

interface ClustersFlags extends CommonFlags {
  node?: string[];
}

export function register(program: Command): void {
  addViewFlags(program
    .command('clusters')
    .description(descriptionOf('clusters'))
    .option('--node <name>', 'only clusters of this node (repeat or comma-separate for more)', collect))
    .addHelpText('after', `
Each cluster is answered by the node owning its shard. ADDRESSES are the DNS record's addresses as
last read from MAAS (SEEN ago); a machine is IN DNS when the record holds its address.

Examples:
  metalfleet clusters --nats nats://127.0.0.1:4222
  metalfleet clusters -o json | jq '.replies[].value.clusters[] | {key, dnsName, addresses}'
`)
    .action(async (flags: ClustersFlags) => {
      await runView(flags, 'metalfleet-clusters', (transport, options) => clustersView(transport, options), nodesFrom(flags.node));
    });
}
