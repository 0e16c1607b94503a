import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { HostBackend } from '../../bus/messages/introspect.ts';
import { CliError } from '../cli-error.ts';
import { addViewFlags, collect, formatFrom, hostsView, HOST_STATES, nodesFrom, oneOf, runView, type CommonFlags } from '../introspect/index.ts';

// `metalfleet hosts`: every host the cluster drives, one line each, from the nodes that drive them.

// `-o wide` is the table with the condition columns; `-o name` one kind/namespace/name a line.
const HOSTS_FORMATS = ['table', 'wide', 'name', 'json', 'yaml'];

interface HostsFlags extends CommonFlags {
  state?: string;
  backend?: string;
  node?: string[];
  errors?: boolean;
}

export function register(program: Command): void {
  addViewFlags(program
    .command('hosts')
    .description(descriptionOf('hosts'))
    .option('--state <state>', `only hosts in this state (e.g. available, provisioning, provisioned, Deployed)`)
    .option('--backend <backend>', 'only hosts of this backend: ironic, maas or fixture')
    .option('--node <name>', 'only hosts driven by this node (repeat or comma-separate for more)', collect)
    .option('--errors', 'only hosts with an error'), HOSTS_FORMATS)
    .addHelpText('after', `
States: ${HOST_STATES.join(', ')}

Examples:
  metalfleet hosts --nats nats://127.0.0.1:4222
  metalfleet hosts --state provisioning --backend ironic
  metalfleet hosts --errors --node a -o yaml
  metalfleet hosts -o wide            (adds READY, PROGRESSING and the other conditions)
  metalfleet hosts --errors -o name | xargs metalfleet host reboot
  metalfleet hosts --json | jq '.replies[].value.hosts[] | select(.poweredOn)'
`)
    .action(async (flags: HostsFlags) => {
      const state = oneOf('--state', flags.state, HOST_STATES, (v) => v.toLowerCase());
      const backend = oneOf('--backend', flags.backend, HostBackend.options);
      const nodes = nodesFrom(flags.node);
      // `-o wide` and `-o name` are text, as the table; the shared flags know table, json and yaml only.
      const wide = flags.output === 'wide';
      const names = flags.output === 'name';
      if ((wide || names) && flags.json) throw new CliError(`--json and -o ${flags.output} ask for two formats: give one`, 2);
      const asTable = wide || names ? { ...flags, output: 'table' } : flags;
      formatFrom(asTable, HOSTS_FORMATS);
      await runView(asTable, 'metalfleet-hosts', (transport, options) => hostsView(transport, {
        ...(state !== undefined ? { state } : {}),
        ...(backend !== undefined ? { backend } : {}),
        ...(flags.errors ? { errors: true } : {}),
        ...(wide ? { wide: true } : {}),
        ...(names ? { names: true } : {}),
      }, options), nodes);
    });
}
