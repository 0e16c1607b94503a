// npm run bench -- NAME [--flag value]...: runs bench/NAME.ts and prints its result as one JSON
// object on the last line.
import { BenchFlagError } from './support.ts';

const [name, ...rest] = process.argv.slice(2);
const benches: Record<string, () => Promise<{ run(flags: Record<string, string>): Promise<object> }>> = {
  lifecycle: () => import('./lifecycle.ts'),
  capacity: () => import('./capacity.ts'),
  ironic: () => import('./ironic.ts'),
  enroll: () => import('./enroll.ts'),
  maas: () => import('./maas.ts'),
  commands: () => import('./commands.ts'),
  failover: () => import('./failover.ts'),
  'maas-failover': () => import('./maas-failover.ts'),
  'cli-start': () => import('./cli-start.ts'),
  chaos: () => import('./chaos.ts'),
  scale: () => import('./scale.ts'),
  kv: () => import('./kv.ts'),
  ui: () => import('./ui.ts'),
  'actor-turns': () => import('./actor-turns.ts'),
};
if (!name || !(name in benches)) {
  process.stderr.write(`usage: npm run bench -- NAME [--flag value]; NAME is one of: ${Object.keys(benches).join(', ')}\n`);
  process.exit(2);
}
const flags: Record<string, string> = {};
for (let i = 0; i < rest.length; i++) {
  const arg = rest[i] ?? '';
  if (!arg.startsWith('--')) {
    process.stderr.write(`bench ${name}: unexpected argument "${arg}"; flags look like --hosts 1000\n`);
    process.exit(2);
  }
  const [key, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
  const next = rest[i + 1];
  if (inline !== undefined) flags[key] = inline;
  else if (next !== undefined && !next.startsWith('--')) flags[key] = (i++, next);
  else flags[key] = 'true';
}
const bench = await benches[name]!();
const result = await bench.run(flags).catch((error: unknown) => {
  // A bad flag is the user's to fix: its line alone, as the CLI prints one; anything else keeps its stack.
  if (!(error instanceof BenchFlagError)) throw error;
  process.stderr.write(`bench ${name}: ${error.message}\n`);
  process.exit(2);
});
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
