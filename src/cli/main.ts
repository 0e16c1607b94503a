// The `metalfleet` command. Each subcommand lives in src/cli/commands/<name>.ts and exports
// `register(program)`; this file only wires them together and maps failures to exit codes.
import { Command } from 'commander';
import { commands } from './commands/index.ts';

const program = new Command('metalfleet')
  .description('Bare-metal provisioning orchestrator: Ironic and MAAS hosts as supervised actors')
  .version('0.1.0')
  .showHelpAfterError('(run with --help for usage)');

for (const register of commands) register(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  // Commands throw CliError for expected failures; anything else is a bug worth a stack.
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`metalfleet: ${message}\n`);
  process.exitCode = typeof (err as { exitCode?: unknown }).exitCode === 'number' ? (err as { exitCode: number }).exitCode : 1;
}
