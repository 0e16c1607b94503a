import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { CliError } from '../cli-error.ts';
import { msFlag } from '../config.ts';
import { addNatsFlags, type NatsFlagValues } from '../nats-options.ts';
import { collect, connectCli, endQuietlyWhenReaderCloses, noAnswer, nodesFrom, renderFrame, runTop, sampleTop, timeoutFrom, usageErrorsExitTwo } from '../introspect/index.ts';

// `metalfleet top`: a live dashboard of the cluster, redrawn every --interval ms.

interface TopFlags extends NatsFlagValues {
  interval: number;
  node?: string[];
  timeout?: string;
  once?: boolean;
}

export function register(program: Command): void {
  usageErrorsExitTwo(addNatsFlags(program
    .command('top')
    .description(descriptionOf('top'))
    .option('--interval <ms>', 'refresh every this many milliseconds', msFlag('--interval', 100), 1_000)
    .option('--node <name>', 'only this node (repeat or comma-separate for more)', collect)
    .option('--timeout <seconds>', 'how long each refresh waits for the nodes (default 2)')
    .option('--once', 'print one frame (the terminal\'s size; piped, $COLUMNS x $LINES or 80x24) and exit: for scripts and logs')))
    .addHelpText('after', `
Keys:
  s        cycle the sort of the mailbox list (depth, high-water, processed, restarts)
  /        filter the mailbox and error lists by text; Enter applies, Esc clears
  q        quit (Ctrl-C too)

Examples:
  metalfleet top --nats nats://127.0.0.1:4222
  metalfleet top --interval 500 --node a
  ssh ops@bastion -t metalfleet top --nats nats://nats:4222
`)
    .action(async (flags: TopFlags, cmd: Command) => {
      if (flags.once && cmd.getOptionValueSource('interval') === 'cli') throw new CliError('--interval does nothing with --once (one frame, no refresh): give one', 2);
      const nodes = nodesFrom(flags.node);
      // A refresh that takes longer than the interval only skips ticks (one is in flight at a
      // time), so a busy node gets the same 2 s as the other commands rather than one interval.
      const timeoutMs = timeoutFrom({ timeout: flags.timeout ?? '2' });
      if (!flags.once && !(process.stdout.isTTY && process.stdin.isTTY)) {
        throw new CliError('top needs a terminal (stdin and stdout); use --once, or `metalfleet hosts` / `metalfleet actors` in scripts', 2);
      }
      const { transport, natsUrl } = await connectCli(flags, 'metalfleet-top');
      try {
        const sample = { timeoutMs, ...(nodes ? { nodes } : {}) };
        if (flags.once) {
          const data = await sampleTop(transport, sample);
          const { width, height } = frameSize(process.stdout, process.env);
          endQuietlyWhenReaderCloses();
          process.stdout.write(`${renderFrame(data, { width, height, sort: 'depth', filter: '' }).join('\n')}\n`);
          // The frame says it too, but a script reads the exit: no node at all fails as every view does.
          const failure = data.nodes.length === 0 ? noAnswer({ replies: [], errors: [], missing: data.missing }, { timeoutMs, natsUrl, ...(nodes ? { nodes } : {}) }) : null;
          if (failure) throw failure;
          return;
        }
        await runTop(transport, { ...sample, intervalMs: flags.interval, input: process.stdin, output: process.stdout });
      } finally {
        await transport.close().catch(() => undefined);
      }
    });
}

/**
 * The size of a --once frame: the terminal's; piped, $COLUMNS and $LINES where they are set (as
 * ps and less read them: `COLUMNS=200 LINES=80 metalfleet top --once > frame.txt`), else 80x24.
 */
export function frameSize(out: { readonly isTTY?: boolean; readonly columns?: number; readonly rows?: number }, env: NodeJS.ProcessEnv): { width: number; height: number } {
  if (out.isTTY && out.columns && out.rows) return { width: out.columns, height: out.rows };
  return { width: sizeFrom(env['COLUMNS']) ?? 80, height: sizeFrom(env['LINES']) ?? 24 };
}

function sizeFrom(value: string | undefined): number | null {
  const n = value !== undefined && /^\d{1,4}$/.test(value.trim()) ? Number(value.trim()) : 0;
  return n > 0 ? n : null;
}
