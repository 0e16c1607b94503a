import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { FixtureOptionsError, OPERATIONS, startFixtureServer } from '../../adapters/fixture/index.ts';
import type { FixtureOptions } from '../../adapters/fixture/index.ts';
import type { Operation } from '../../machines/bmh/index.ts';
import { CliError } from '../cli-error.ts';
import { intFlag, msFlag, readEnv } from '../config.ts';
import { createLogger, logLevelFlag } from '../logger.ts';
import { untilSignalled } from '../signals.ts';

// `metalfleet fixture-server`: the fixture backend in a process of its own, which every node of
// a cluster drives over HTTP, so "each host provisioned once" is counted where the hosts live.

interface FixtureServerFlags {
  port?: number;
  host: string;
  latency?: FixtureOptions['latencyMs'];
  provisionPasses?: number;
  inspectPasses?: number;
  pollMs?: number;
  pool?: string;
  logLevel?: string;
}

function portFlag(value: string): number {
  const n = intFlag('--port', 0)(value);
  if (n > 65_535) throw new CliError(`--port: expected a port from 0 to 65535, got "${value}"`, 2);
  return n;
}

const OPERATION_NAMES: ReadonlySet<string> = new Set(OPERATIONS);

// `--latency 50` for every call, or `--latency provision=200,inspect=100` per operation (the
// others 0). The numbers read as the demo's --latency does.
export function latencyFlag(value: string): NonNullable<FixtureOptions['latencyMs']> {
  if (!value.includes('=')) return msFlag('--latency', 0)(value);
  const out: Partial<Record<Operation, number>> = {};
  for (const part of value.split(',')) {
    const [op = '', ms = ''] = part.split('=', 2).map((s) => s.trim());
    if (!OPERATION_NAMES.has(op)) throw new CliError(`--latency: unknown operation "${op}" (known: ${OPERATIONS.join(', ')})`, 2);
    out[op as Operation] = msFlag(`--latency ${op}`, 0)(ms);
  }
  return out;
}

export function register(program: Command): void {
  program
    .command('fixture-server')
    .description(descriptionOf('fixture-server'))
    .option('--port <n>', 'listen on this port (default: a free one)', portFlag)
    .option('--host <address>', 'listen on this address', '127.0.0.1')
    .option('--latency <ms|op=ms,...>', 'delay of every call, or per operation, e.g. provision=200,inspect=100', latencyFlag)
    .option('--provision-passes <n>', 'provision and deprovision calls per deployment (default 1)', intFlag('--provision-passes', 1))
    .option('--inspect-passes <n>', 'inspect calls per inspection (default 1)', intFlag('--inspect-passes', 1))
    .option('--poll-ms <ms>', 'afterMs of a "still working" answer (default 1000)', msFlag('--poll-ms', 0))
    .option('--pool <name>', 'capacity pool of every host (default fixture:default)')
    .option('--log-level <level>', 'log level on stderr (default: METALFLEET_LOG_LEVEL or warn)', logLevelFlag)
    .addHelpText('after', '\nPrints one JSON line {"url": "..."} on stdout once listening.\n\nExamples:\n  metalfleet fixture-server\n  metalfleet fixture-server --port 7480 --latency provision=200,inspect=50 --provision-passes 3 --poll-ms 100\n')
    .action(async (flags: FixtureServerFlags) => {
      const env = readEnv();
      const log = createLogger(flags.logLevel ?? env.METALFLEET_LOG_LEVEL ?? 'warn', { node: 'fixture-server' });
      const options: FixtureOptions = {
        ...(flags.latency !== undefined ? { latencyMs: flags.latency } : {}),
        ...(flags.provisionPasses !== undefined ? { provisionPasses: flags.provisionPasses } : {}),
        ...(flags.inspectPasses !== undefined ? { inspectPasses: flags.inspectPasses } : {}),
        ...(flags.pollMs !== undefined ? { pollMs: flags.pollMs } : {}),
        ...(flags.pool !== undefined ? { pool: flags.pool } : {}),
      };
      let server;
      try {
        server = await startFixtureServer({ host: flags.host, port: flags.port ?? 0, options, log });
      } catch (err) {
        if (err instanceof FixtureOptionsError) throw new CliError(err.message, 2);
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE') throw new CliError(`--port ${flags.port}: already in use on ${flags.host}`, 1);
        if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new CliError(`--host ${flags.host}: not an address of this machine`, 1);
        throw err;
      }
      // Listen for the signals before printing: whoever reads the line may signal at once.
      const signalled = untilSignalled();
      process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
      await signalled;
      await server.close();
    });
}
