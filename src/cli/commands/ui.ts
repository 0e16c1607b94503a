import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { CliError } from '../cli-error.ts';
import { msFlag, portFlag, readEnv, shardsFlag } from '../config.ts';
import { addNatsFlags, addSigningKeyFlag, connectClient, signingKeyFrom, type NatsFlagValues } from '../nats-options.ts';
import { untilSignalled } from '../signals.ts';
import { errorMessage } from '../../api/index.ts';

// `metalfleet ui`: the live dashboard over a cluster's introspection API, on its own HTTP port.
// Read-only unless --ui-commands; then commands from the page need the token printed here.

interface UiFlags extends NatsFlagValues {
  port: number;
  bind: string;
  uiCommands?: boolean;
  shards?: number;
  interval: number;
  signingKey?: string;
}

export function register(program: Command): void {
  addSigningKeyFlag(addNatsFlags(
    program
      .command('ui')
      .description(descriptionOf('ui'))
      .option('--port <port>', 'HTTP port of the dashboard (0 = any free port)', portFlag('--port'), 8090)
      .option('--bind <address>', 'address to listen on; the page shows the whole fleet, so keep it on loopback unless a proxy guards it', '127.0.0.1')
      .option('--ui-commands', 'allow host commands from the page (power, reboot, detach, pause); each needs the token printed at start')
      .option('--shards <n>', 'shard count of the cluster (default METALFLEET_SHARDS or 256)', shardsFlag)
      .option('--interval <ms>', 'how often the page is refreshed from the cluster', msFlag('--interval', 100), 1_000),
  ))
    .addHelpText('after', '\nExamples:\n  metalfleet ui --nats nats://127.0.0.1:4222\n  metalfleet ui --nats nats://127.0.0.1:4222 --ui-commands --signing-key ~/.metalfleet/operator.seed\n')
    .action(async (flags: UiFlags) => {
      const shardCount = flags.shards ?? readEnv().METALFLEET_SHARDS;
      const signingKey = await signingKeyFrom(flags, process.env);
      const transport = await connectClient(flags, process.env, 'metalfleet-ui', true);
      const { commandGate, startUiServer } = await import('../../ui/index.ts');
      const gate = commandGate({ enabled: flags.uiCommands === true });
      const server = await startUiServer({ transport, gate, shardCount, signingKey, intervalMs: flags.interval, port: flags.port, bind: flags.bind })
        .catch((err: unknown) => {
          throw new CliError(`cannot listen on ${flags.bind}:${flags.port}: ${errorMessage(err)}`);
        });
      process.stdout.write(`${uiBanner(server.url, gate.token)}\n`);
      await untilSignalled();
      await server.close();
      await transport.close();
    });
}

/** What `ui` and `demo --ui` print: the address, with the command token in the fragment when commands are on. */
export function uiBanner(url: string, token: string | null): string {
  return token === null
    ? `metalfleet dashboard: ${url} (read-only; --ui-commands allows host commands)`
    : `metalfleet dashboard: ${url}#token=${token}\n  host commands are on: only a browser opened with this address (it carries the token) may send them`;
}
