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
