import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { readEnv, shardsFlag } from '../config.ts';
import { addViewFlags, inspectView, parseHostKey, runView, type CommonFlags } from '../introspect/index.ts';
import { namedKind, targetOf } from './host.ts';

// `metalfleet inspect [KIND/]NS/NAME`: one object as its owner sees it (no secret is ever in the
// reply). The kind is taken as `host` takes it, and only that kind is asked for: a BareMetalHost
// and a MaasMachine may share a name.

interface InspectFlags extends CommonFlags {
  kind?: string;
  shards?: number;
}

export function register(program: Command): void {
  addViewFlags(program
    .command('inspect')
    .description(descriptionOf('inspect'))
    .argument('<host>', 'the host as NAMESPACE/NAME, or KIND/NAMESPACE/NAME (maasmachine/capi/m-0)')
    .option('--kind <kind>', 'its kind: BareMetalHost (bmh; the default) or MaasMachine')
    .option('--shards <n>', 'shard count of the cluster (default METALFLEET_SHARDS or 256)', shardsFlag))
    .addHelpText('after', `
Examples:
  metalfleet inspect metal3/worker-0 --nats nats://127.0.0.1:4222
  metalfleet inspect metal3/worker-0 -o yaml
  metalfleet inspect maasmachine/capi/c1-md-0-x7k2p        # or --kind MaasMachine capi/c1-md-0-x7k2p
`)
    .action(async (host: string, flags: InspectFlags) => {
      const target = targetOf(host, flags.kind === undefined ? undefined : namedKind(flags.kind, '--kind'));
      const key = parseHostKey(target.key);
      const shardCount = flags.shards ?? readEnv().METALFLEET_SHARDS;
      await runView(flags, 'metalfleet-inspect', (transport, options) => inspectView(transport, { host: key, kind: target.kind, shardCount }, options));
    });
}
