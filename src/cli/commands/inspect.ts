import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { intFlag, readEnv } from '../config.ts';
import { addViewFlags, inspectView, parseHostKey, runView, type CommonFlags } from '../introspect/index.ts';

// `metalfleet inspect HOST`: one host as its owner sees it (no secret is ever in the reply).

interface InspectFlags extends CommonFlags {
  shards?: number;
}

export function register(program: Command): void {
  addViewFlags(program
    .command('inspect')
    .description(descriptionOf('inspect'))
    .argument('<host>', 'the host as NAMESPACE/NAME')
    .option('--shards <n>', 'shard count of the cluster (default METALFLEET_SHARDS or 256)', intFlag('--shards', 1)))
    .addHelpText('after', `
Examples:
  metalfleet inspect metal3/worker-0 --nats nats://127.0.0.1:4222
  metalfleet inspect metal3/worker-0 -o yaml
`)
    .action(async (host: string, flags: InspectFlags) => {
      const key = parseHostKey(host);
      const shardCount = flags.shards ?? readEnv().METALFLEET_SHARDS;
      await runView(flags, 'metalfleet-inspect', (transport, options) => inspectView(transport, { host: key, shardCount }, options));
    });
}
