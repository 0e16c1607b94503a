// `npm run ironic:start [-- --port N]`: a private Ironic for development, installed first if
// missing. Prints IRONIC_ENDPOINT=... and runs until Ctrl-C or SIGTERM, then cleans up.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ironicInstalled, startIronic } from '../src/sim/ironic/index.ts';

const USAGE = `usage: npm run ironic:start [-- --port N]

Starts a private Ironic (fake-hardware, noauth, SQLite) for development, installing it first if
missing; prints IRONIC_ENDPOINT=... and runs until Ctrl-C or SIGTERM, then removes its files.

  --port N    listen on 127.0.0.1:N (default: a free port)
  -h, --help  print this help and exit
`;

/** The port asked for; --help prints the usage and exits 0; anything else is refused, exit 2. */
function parseArgs(argv: readonly string[]): { port?: number } | { help: true } | { error: string } {
  let port: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '-h' || arg === '--help') return { help: true };
    const eq = arg.startsWith('--port=') ? arg.slice('--port='.length) : undefined;
    if (arg === '--port' || eq !== undefined) {
      const value = eq ?? argv[++i];
      const n = Number(value);
      if (value === undefined || value === '' || !Number.isInteger(n) || n < 1 || n > 65535) return { error: `--port needs a number from 1 to 65535, not ${JSON.stringify(value ?? '')}` };
      port = n;
      continue;
    }
    return { error: `unknown argument ${JSON.stringify(arg)} (see --help)` };
  }
  return port === undefined ? {} : { port };
}

function portArg(argv: string[]): number | undefined {
  const parsed = parseArgs(argv);
  if ('help' in parsed) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  if ('error' in parsed) {
    console.error(`ironic:start: ${parsed.error}`);
    console.error(USAGE);
    process.exit(2);
  }
  return parsed.port;
}

async function main(): Promise<void> {
  const port = portArg(process.argv.slice(2));
  if (!ironicInstalled()) {
    const script = join(dirname(fileURLToPath(import.meta.url)), 'ironic-install.sh');
    console.error('ironic:start: Ironic is not installed; installing it (a few minutes the first time)');
    const r = spawnSync('bash', [script], { stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
  const ironic = await startIronic(port === undefined ? {} : { port });
  console.log(`IRONIC_ENDPOINT=${ironic.url}`);
  console.error(`ironic:start: Ironic 1.82 with fake-hardware in ${ironic.dir}; Ctrl-C stops it`);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    console.error(`ironic:start: ${signal}, stopping Ironic`);
    ironic.stop().then(() => process.exit(0), (err: unknown) => {
      console.error(`ironic:start: stop failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // The signal handlers keep the process here until one of them stops it.
  setInterval(() => undefined, 1 << 30);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
