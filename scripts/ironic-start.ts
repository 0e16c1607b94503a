// `npm run ironic:start [-- --port N]`: a private Ironic for development, installed first if
// missing. Prints IRONIC_ENDPOINT=... and runs until Ctrl-C or SIGTERM, then cleans up.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ironicInstalled, startIronic } from '../src/sim/ironic/index.ts';

function portArg(argv: string[]): number | undefined {
  const i = argv.indexOf('--port');
  if (i < 0) return undefined;
  const port = Number(argv[i + 1]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    console.error(`ironic:start: --port needs a number from 1 to 65535, not ${JSON.stringify(argv[i + 1] ?? '')}`);
    process.exit(2);
  }
  return port;
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
