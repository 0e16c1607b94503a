import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { registerSimRedfish } from './sim-redfish.ts';
import type { z } from 'zod';
import { parseSeedMachines, SeedError, SeedMachineSchema, SeedMachinesSchema, startMaasSim } from '../../sim/maas/index.ts';
import type { SeedMachine } from '../../sim/maas/index.ts';
import { CliError, readFailure } from '../cli-error.ts';
import { intFlag, msFlag } from '../config.ts';
import { untilSignalled } from '../signals.ts';
import { apiKeyFlag, faultsFrom, imageFlag, latencyFlag, machineListFlag, rateFlag, speedFlag, unknownFaultMachine } from '../sim-maas/flags.ts';
import type { FaultFlags } from '../sim-maas/flags.ts';
import type { SeedBootResource } from '../../sim/maas/index.ts';
import { checkSaveTarget, saveFleet } from '../sim-maas/save.ts';

// `metalfleet sim maas`: a simulated MAAS on loopback, a local MAAS for anyone's tests (juju's
// gomaasapi, python-libmaas, the maas CLI, CAPMAAS, metalfleet). It prints the variables clients
// read, then serves until SIGINT or SIGTERM, and with --save writes the fleet back out.

interface SimMaasFlags extends FaultFlags {
  port?: number;
  fleet?: string;
  seed?: string;
  machine?: string[];
  deployMs?: number;
  releaseMs?: number;
  speed?: number;
  apiKey?: string;
  save?: string;
  image?: SeedBootResource[];
}

function portFlag(value: string): number {
  const n = intFlag('--port', 0)(value);
  if (n > 65_535) throw new CliError(`--port: expected a port from 0 to 65535, got "${value}"`, 2);
  return n;
}

/** The fleet file's machines; undefined when it is missing and may be (`--fleet F --save F`). */
async function readSeed(flag: string, file: string, mayBeMissing: boolean): Promise<SeedMachine[] | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && mayBeMissing) return undefined;
    throw new CliError(`${flag} ${file}: cannot read: ${readFailure(err)}`, 1);
  }
  try {
    return parseSeedMachines(text, file);
  } catch (err) {
    if (err instanceof SeedError) throw new CliError(`invalid seed, the simulator did not start:\n${err.message}`, 1);
    throw err;
  }
}

// --machine hostname=h1,zone=az1,pool=gpu,tags=ssd+fast,cpu=8,memory=16384,domain=maas
const MACHINE_KEYS: Record<string, keyof SeedMachine> = { hostname: 'hostname', zone: 'zone', pool: 'pool', tags: 'tags', cpu: 'cpuCount', memory: 'memoryMb', domain: 'domain', status: 'status', power: 'powerType' };
const FLAG_KEYS = new Map<PropertyKey, string>(Object.entries(MACHINE_KEYS).map(([flag, field]) => [field, flag]));
const NUMBER = /^\s*-?\d+(\.\d+)?\s*$/;

// The statuses a seed may start a machine in, from the schema (for --help and its errors).
const STATUSES = SeedMachineSchema.shape.status.unwrap().options;

/** `A, B or C`. */
function orList(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1) ?? ''}`;
}

/** A schema issue of the machines from --machine, as the user wrote them: `--machine #2: memory: ...`. */
function machineIssue(issue: z.core.$ZodIssue, raw: ReadonlyArray<Record<string, unknown>>): string {
  const [index, field, ...rest] = issue.path;
  const n = typeof index === 'number' ? index : 0;
  const key = FLAG_KEYS.get(field ?? '') ?? String(field ?? '');
  const item = rest.length > 0 && typeof rest[0] === 'number' ? ` "${String((raw[n]?.[String(field)] as unknown[] | undefined)?.[rest[0]] ?? '')}"` : '';
  const missing = field !== undefined && raw[n]?.[String(field)] === undefined;
  // The schema's own text names other machines by their 0-based place in the list.
  const message = missing ? `required, e.g. ${key}=${key === 'hostname' ? 'node-1' : key === 'cpu' ? '8' : '16384'}` : issue.message.replace(/machine \[(\d+)\]/g, (_m, i: string) => `--machine #${Number(i) + 1}`);
  return `--machine #${n + 1}: ${field === undefined ? '' : `${key}${item}: `}${message}`;
}

function machineFlags(specs: readonly string[], fleet: readonly SeedMachine[], fleetFlag: string): SeedMachine[] {
  const raw = specs.map((spec, i) => {
    const out: Record<string, unknown> = {};
    for (const part of spec.split(',')) {
      if (part.trim() === '') continue;
      const eq = part.indexOf('=');
      const k = (eq < 0 ? part : part.slice(0, eq)).trim();
      const v = eq < 0 ? '' : part.slice(eq + 1);
      const key = MACHINE_KEYS[k];
      if (!key) throw new CliError(`--machine #${i + 1}: unknown field "${k}" (known: ${Object.keys(MACHINE_KEYS).join(', ')})`, 2);
      if ((key === 'cpuCount' || key === 'memoryMb') && !NUMBER.test(v)) throw new CliError(`--machine #${i + 1}: ${k}: expected a whole number${key === 'memoryMb' ? ' of MiB' : ''}, got "${v}"`, 2);
      out[key] = key === 'tags' ? v.split('+').filter(Boolean) : key === 'cpuCount' || key === 'memoryMb' ? Number(v) : v;
    }
    return out;
  });
  const parsed = SeedMachinesSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.slice(0, 5).map((issue) => machineIssue(issue, raw));
    const more = parsed.error.issues.length - lines.length;
    throw new CliError(`invalid --machine, the simulator did not start:\n${lines.join('\n')}${more > 0 ? `\n--machine: and ${more} more` : ''}`, 2);
  }
  const taken = new Set(fleet.map((m) => m.hostname.toLowerCase()));
  const clash = parsed.data.findIndex((m) => taken.has(m.hostname.toLowerCase()));
  if (clash >= 0) throw new CliError(`invalid --machine, the simulator did not start:\n--machine #${clash + 1}: hostname: "${parsed.data[clash]?.hostname ?? ''}" is already a machine in ${fleetFlag}`, 2);
  return parsed.data;
}

function fleetFile(flags: SimMaasFlags): string | undefined {
  if (flags.fleet !== undefined && flags.seed !== undefined && flags.fleet !== flags.seed) throw new CliError('--fleet and --seed name the same thing (the machines file): give one', 2);
  return flags.fleet ?? flags.seed;
}

const HELP_AFTER = `
Prints MAAS_ENDPOINT=, MAAS_API_KEY= (admin) and MAAS_USER_API_KEY= (non-admin) on stdout.
The fleet file is a YAML (or JSON) list of machines:
  - hostname: node-1        # required, a DNS label
    cpuCount: 8             # required
    memoryMb: 16384         # required
    zone: az1               # default "default"
    pool: gpu               # default "default"
    tags: [ssd, 10g]
    domain: maas
    powerType: ipmi
    status: Ready           # the default; the statuses it takes are below
    disks: [{ sizeGb: 480, tags: [ssd] }]
    nics: [{ mac: "52:54:00:12:34:56" }]
  and what --save writes besides: systemId, architecture, cpuSpeedMhz, hardware, owner,
  agentName, osystem, distroSeries, description, locked, ownerData (README: "A local MAAS").
  A status is one of: ${orList(STATUSES)}.
--machine SPEC (repeatable) starts the simulator with these machines instead of the default 12;
with --fleet FILE they are added to the file's. Its keys: hostname, cpu, memory (MiB; the three
required), zone, pool, tags (a+b), domain, status (as above), power.
--save FILE writes the fleet in this format on SIGINT/SIGTERM; --fleet FILE --save FILE keeps a
fleet across runs (a missing FILE then starts from the default fleet).

Examples:
  metalfleet sim maas
  metalfleet sim maas --port 5240 > maas.env &
  metalfleet sim maas --fleet machines.yaml --speed 20
  metalfleet sim maas --fleet state.yaml --save state.yaml
  metalfleet sim maas --machine hostname=big1,zone=az1,cpu=32,memory=262144,tags=gpu
  metalfleet sim maas --fail-deploy node-03 --broken node-07 --latency-ms 50 --error-rate 0.01
  metalfleet sim maas --image custom/u-2204-k8s --image rocky-9@amd64/generic
`;

export function register(program: Command): void {
  const sim = program.command('sim').description(descriptionOf('sim'));
  registerSimRedfish(sim);
  sim
    .command('maas')
    .description('a simulated MAAS 2.0 API (OAuth, machines, zones, pools, networks, DNS, tags, events) on 127.0.0.1 until SIGINT/SIGTERM')
    .option('--port <n>', 'listen on this port (default: a free one)', portFlag)
    .option('--fleet <file>', 'YAML or JSON list of machines to start with (default: 12 Ready machines in zones az1/az2, pools default/gpu)')
    .option('--seed <file>', 'the same as --fleet (its older name)')
    .option('--machine <spec...>', 'a machine to start with, e.g. hostname=h1,zone=az1,pool=gpu,tags=ssd+fast,cpu=8,memory=16384 (repeatable; replaces the default 12 machines, or with --fleet is added to the file\'s)')
    .option('--speed <n>', 'run the lifecycle (commissioning, deploying, releasing) this many times faster than a real MAAS', speedFlag)
    .option('--deploy-ms <ms>', 'Deploying lasts exactly this long (overrides --speed for deploys)', msFlag('--deploy-ms', 0))
    .option('--release-ms <ms>', 'Releasing and Disk erasing last exactly this long (overrides --speed for releases)', msFlag('--release-ms', 0))
    .option('--fail-deploy <machines>', 'these machines (hostnames or system_ids, comma-separated) go Deploying -> Failed deployment', machineListFlag('--fail-deploy'))
    .option('--broken <machines>', 'these machines are Broken from the start (the allocator may still pick one once and answer 409, the race a real MAAS has)', machineListFlag('--broken'))
    .option('--power-off-after-deploy <machines>', 'these machines turn themselves off once, shortly after each deployment', machineListFlag('--power-off-after-deploy'))
    .option('--latency-ms <ms>', 'add this much latency to every response', latencyFlag)
    .option('--error-rate <r>', 'answer this share of requests (0 to 1) with 503', rateFlag)
    .option('--api-key <key>', 'serve this admin key (CONSUMER:TOKEN:SECRET) instead of a random one; visible to other local users in the process list')
    .option('--save <file>', 'write the fleet (the --fleet format) to this file on SIGINT/SIGTERM')
    .option('--image <name>', 'an uploaded custom image MAAS has besides the synced Ubuntu ones, NAME or NAME@ARCH (e.g. custom/my-image, my-image@arm64/generic; repeatable)', imageFlag)
    .addHelpText('after', HELP_AFTER)
    .action(async (flags: SimMaasFlags) => {
      const file = fleetFile(flags);
      // Checked here, not as a commander parser: commander echoes a bad value in its own message.
      const apiKey = flags.apiKey === undefined ? undefined : apiKeyFlag(flags.apiKey);
      if (flags.save !== undefined) await checkSaveTarget(flags.save);
      const seeded = file === undefined ? undefined : await readSeed(flags.fleet !== undefined ? '--fleet' : '--seed', file, file === flags.save);
      const listed = flags.machine ? machineFlags(flags.machine, seeded ?? [], flags.fleet !== undefined ? `--fleet ${file}` : `--seed ${file}`) : [];
      const machines = seeded === undefined && listed.length === 0 ? undefined : [...(seeded ?? []), ...listed];
      let maas;
      try {
        maas = await startMaasSim({
          port: flags.port,
          machines,
          deployMs: flags.deployMs,
          releaseMs: flags.releaseMs,
          speed: flags.speed,
          faults: faultsFrom(flags),
          ...(flags.image ? { bootResources: flags.image } : {}),
          ...(apiKey === undefined ? {} : { keys: { admin: apiKey } }),
        });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE') throw new CliError(`--port ${flags.port}: already in use on 127.0.0.1`, 1);
        throw err;
      }
      const typo = unknownFaultMachine(flags, maas.machines());
      if (typo) {
        await maas.stop();
        throw typo;
      }
      // Listen for the signals before printing: whoever reads these lines may signal at once.
      const signalled = untilSignalled();
      process.stdout.write(`MAAS_ENDPOINT=${maas.url}\nMAAS_API_KEY=${maas.adminKey}\nMAAS_USER_API_KEY=${maas.userKey}\n`);
      const zones = [...new Set(maas.machines().map((m) => m.zone))].join(', ');
      const from = seeded !== undefined ? ''
        : file !== undefined ? ` (${file} is missing: ${listed.length > 0 ? 'the --machine machines only' : 'the default fleet'})`
        : listed.length > 0 ? ' (from --machine, instead of the default fleet)' : '';
      const count = maas.machines().length;
      process.stderr.write(`metalfleet sim maas: ${count} machine${count === 1 ? '' : 's'} in zones ${zones}${from}; stop with Ctrl-C\n`);
      await signalled;
      // The fleet as it stood when told to stop, before stopping drops any pending transition.
      const final = flags.save === undefined ? undefined : maas.seeds();
      await maas.stop();
      if (flags.save !== undefined && final !== undefined) {
        await saveFleet(flags.save, final);
        process.stderr.write(`metalfleet sim maas: saved ${final.length} machine${final.length === 1 ? '' : 's'} to ${flags.save}\n`);
      }
    });
}
