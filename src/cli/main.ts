// The `metalfleet` command. Each subcommand lives in src/cli/commands/<name>.ts and exports
// `register(program)`; the catalog lists them. Only the command being run is loaded: a start
// that loaded every command (NATS, the Kubernetes client, the actor runtime) took seconds.
import { Command } from 'commander';
import { COMMANDS, commandNamed } from './commands/catalog.ts';
import { terminalText } from './terminal-text.ts';
import { errorMessage } from '../api/index.ts';
import { nameExcessArguments, usageErrorsExitTwoEverywhere } from './usage-errors.ts';

function baseProgram(): Command {
  return new Command('metalfleet')
    .description('Bare-metal provisioning orchestrator: Ironic and MAAS hosts as supervised actors')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    // commander echoes the arguments it refuses: shown escaped, as every error is.
    .configureOutput({ writeErr: (text) => process.stderr.write(terminalText(text)) })
    // An unknown command is a usage error: exit 2, as every command's own usage errors do.
    .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : err.code === 'commander.unknownCommand' ? 2 : err.exitCode));
}

/**
 * The program for these arguments: the named command's module alone, or (for `--help`, no command
 * or a word that is none) a listing of every command by name and description, which loads none.
 */
async function programFor(args: readonly string[]): Promise<Command> {
  const program = baseProgram();
  const words = args.filter((a) => !a.startsWith('-'));
  // `metalfleet help demo` is `metalfleet demo --help`.
  const word = words[0] === 'help' ? words[1] : words[0];
  const entry = word === undefined ? undefined : commandNamed(word);
  if (entry) {
    (await entry.load()).register(program);
    return program;
  }
  for (const c of COMMANDS) {
    const listed = program.command(c.name).aliases([...(c.aliases ?? [])]).description(c.description);
    if (c.args) listed.arguments(c.args);
  }
  return program;
}

/**
 * `help WORD` for a WORD that is no command read as `WORD`: commander printed the whole listing on
 * stderr (exit 1) without a word about WORD, where `metalfleet WORD` says it is unknown and
 * suggests the command meant.
 */
function helpOfUnknown(args: readonly string[]): readonly string[] {
  const words = args.filter((a) => !a.startsWith('-'));
  if (words[0] !== 'help' || words[1] === undefined || commandNamed(words[1])) return args;
  return args.filter((a, i) => i !== args.indexOf('help'));
}

async function main(argv: readonly string[]): Promise<void> {
  try {
    const args = helpOfUnknown(argv.slice(2));
    const program = await programFor(args);
    await nameExcessArguments(usageErrorsExitTwoEverywhere(program)).parseAsync([...argv.slice(0, 2), ...args]);
  } catch (err) {
    // Commands throw CliError for expected failures; anything else is a bug worth a stack.
    const message = errorMessage(err);
    process.stderr.write(`metalfleet: ${terminalText(message)}\n`);
    const code = typeof (err as { exitCode?: unknown }).exitCode === 'number' ? (err as { exitCode: number }).exitCode : 1;
    process.exitCode = code;
    // A failed command is over: a socket it left behind (a NATS connect to a port that never
    // speaks NATS keeps retrying) must not keep the process alive. Output already written drains
    // in the grace period.
    setTimeout(() => process.exit(code), 500);
  }
}

await main(process.argv);
