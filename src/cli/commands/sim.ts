import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { parseSeedMachines, SeedError, startMaasSim, validateSeedMachines } from '../../sim/maas/index.ts';
import type { SeedMachine } from '../../sim/maas/index.ts';
import { CliError } from '../cli-error.ts';
import { intFlag } from '../config.ts';
import { untilSignalled } from '../signals.ts';

// `metalfleet sim maas`: a simulated MAAS on loopback, for trying metalfleet (or CAPMAAS) without
// a MAAS. It prints the two variables CAPMAAS reads, then serves until SIGINT or SIGTERM.

interface SimMaasFlags {
  port?: number;
  seed?: string;
  machine?: string[];
  deployMs?: number;
  releaseMs?: number;
}

function portFlag(value: string): number {
  const n = intFlag('--port', 0)(value);
  if (n > 65_535) throw new CliError(`--port: expected a port from 0 to 65535, got "${value}"`, 2);
  return n;
}

async function readSeed(file: string): Promise<SeedMachine[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new CliError(`${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 1);
  }
  try {
    return parseSeedMachines(text, file);
  } catch (err) {
    if (err instanceof SeedError) throw new CliError(`invalid seed, the simulator did not start:\n${err.message}`, 1);
    throw err;
  }
}

// --machine hostname=h1,zone=az1,pool=gpu,tags=ssd+fast,cpu=8,memory=16384,domain=maas
const MACHINE_KEYS: Record<string, string> = { hostname: 'hostname', zone: 'zone', pool: 'pool', tags: 'tags', cpu: 'cpuCount', memory: 'memoryMb', domain: 'domain', status: 'status', power: 'powerType' };

function machineFlags(specs: readonly string[]): SeedMachine[] {
  const raw = specs.map((spec, i) => {
    const out: Record<string, unknown> = {};
    for (const part of spec.split(',')) {
      const [k = '', v = ''] = part.split('=', 2);
      const key = MACHINE_KEYS[k.trim()];
      if (!key) throw new CliError(`--machine #${i + 1}: unknown field "${k.trim()}" (known: ${Object.keys(MACHINE_KEYS).join(', ')})`, 2);
      out[key] = key === 'tags' ? v.split('+').filter(Boolean) : key === 'cpuCount' || key === 'memoryMb' ? Number(v) : v;
    }
    return out;
  });
  try {
    return validateSeedMachines(raw, '--machine');
  } catch (err) {
    if (err instanceof SeedError) throw new CliError(`invalid --machine, the simulator did not start:\n${err.message}`, 2);
    throw err;
  }
}

export function register(program: Command): void {
  const sim = program.command('sim').description(descriptionOf('sim'));
  sim
    .command('maas')
    .description('a simulated MAAS 2.0 API (OAuth, machines, DNS resources) on 127.0.0.1 until SIGINT/SIGTERM')
    .option('--port <n>', 'listen on this port (default: a free one)', portFlag)
    .option('--seed <file>', 'YAML or JSON list of machines to start with (default: 12 Ready machines in zones az1/az2, pools default/gpu)')
    .option('--machine <spec...>', 'a machine to start with, e.g. hostname=h1,zone=az1,pool=gpu,tags=ssd+fast,cpu=8,memory=16384 (repeatable; with --seed, added to it)')
    .option('--deploy-ms <ms>', 'Deploying lasts this long (default 1000)', intFlag('--deploy-ms', 0))
    .option('--release-ms <ms>', 'Releasing and Disk erasing last this long (default 200)', intFlag('--release-ms', 0))
    .addHelpText('after', '\nPrints MAAS_ENDPOINT=, MAAS_API_KEY= (admin) and MAAS_USER_API_KEY= (non-admin) on stdout.\n\nExamples:\n  metalfleet sim maas\n  metalfleet sim maas --port 5240 > maas.env &\n  metalfleet sim maas --seed machines.yaml --deploy-ms 5000\n  metalfleet sim maas --machine hostname=big1,zone=az1,cpu=32,memory=262144,tags=gpu\n')
    .action(async (flags: SimMaasFlags) => {
      const seeded = flags.seed === undefined ? [] : await readSeed(flags.seed);
      const listed = flags.machine ? machineFlags(flags.machine) : [];
      const machines = flags.seed === undefined && listed.length === 0 ? undefined : [...seeded, ...listed];
      let maas;
      try {
        maas = await startMaasSim({ port: flags.port, machines, deployMs: flags.deployMs, releaseMs: flags.releaseMs });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE') throw new CliError(`--port ${flags.port}: already in use on 127.0.0.1`, 1);
        throw err;
      }
      // Listen for the signals before printing: whoever reads these lines may signal at once.
      const signalled = untilSignalled();
      process.stdout.write(`MAAS_ENDPOINT=${maas.url}\nMAAS_API_KEY=${maas.adminKey}\nMAAS_USER_API_KEY=${maas.userKey}\n`);
      const zones = [...new Set(maas.machines().map((m) => m.zone))].join(', ');
      process.stderr.write(`metalfleet sim maas: ${maas.machines().length} machines in zones ${zones}; stop with Ctrl-C\n`);
      await signalled;
      await maas.stop();
    });
}
