import type { Command } from 'commander';

// Kept apart from the introspection session (which loads the NATS client): validate, a command
// that must start without the heavy parts, takes its usage errors from here too.

/** Commander's own usage errors (unknown flag, missing argument) as one line and exit 2, like ours; help exits 0. */
export function usageErrorsExitTwo(cmd: Command): Command {
  return cmd
    .configureOutput(oneLineUsageErrors)
    .showHelpAfterError(false)
    .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));
}

/** Commander's usage errors as one line, like ours: `metalfleet: unknown option '--x' (see --help)`. */
export const oneLineUsageErrors = {
  outputError: (text: string, write: (text: string) => void): void => write(`metalfleet: ${text.replace(/^error: /, '').replace(/\s+/g, ' ').trim()} (see --help)\n`),
};

/**
 * Commander's "too many arguments" names no argument. Each command in the tree says which words
 * were left over, and which option took a flag as its value: `hosts -o --nats URL` gave `-o` the
 * value `--nats` and left the URL over, and the user saw only "got 1".
 */
export function nameExcessArguments(root: Command): Command {
  for (const cmd of commandTree(root)) {
    const error = cmd.error.bind(cmd);
    cmd.error = (message, options) => {
      if (options?.code !== 'commander.excessArguments') return error(message, options);
      const extra = cmd.args.slice(cmd.registeredArguments.length).map((a) => JSON.stringify(a));
      const tookFlag = cmd.options.flatMap((o) => {
        const value: unknown = cmd.getOptionValue(o.attributeName());
        return typeof value === 'string' && value.startsWith('-') ? [`${o.short ?? o.long ?? o.flags} took ${JSON.stringify(value)} as its value`] : [];
      });
      return error(`${message.replace(/\.$/, '')}: ${extra.join(' ')}${tookFlag.length > 0 ? ` (${tookFlag.join('; ')})` : ''}`, options);
    };
  }
  return root;
}

/**
 * Every command's usage errors as one line and exit 2: demo, node, bmc, ui, sim and the others
 * printed commander's two lines and exited 1, the code their own failures use. The program itself
 * keeps commander's lines for an unknown command, which suggest the command meant.
 */
export function usageErrorsExitTwoEverywhere(root: Command): Command {
  for (const cmd of commandTree(root)) if (cmd !== root) usageErrorsExitTwo(cmd);
  return root;
}

function commandTree(cmd: Command): Command[] {
  return [cmd, ...cmd.commands.flatMap(commandTree)];
}
