// `metalfleet sim maas --machine SPEC`: its errors name the flag as the user wrote it (which
// --machine, counted from 1, and the SPEC's own key), and --help says what it does to the default
// fleet and lists every status the fleet schema takes.
import test from 'ava';
import { SeedMachineSchema } from '../../src/sim/maas/index.ts';
import { metalfleet } from './run.ts';

test('sim maas --machine - a bad value names the --machine (from 1) and the key as written', async (t) => {
  const cases: Array<[string[], string]> = [
    [['--machine', 'hostname=h1,cpu=8,memory=16384', '--machine', 'hostname=h2,cpu=2,memory=0'], '--machine #2: memory: must be at least 1'],
    [['--machine', 'hostname=h1,cpu=many,memory=1024'], '--machine #1: cpu: expected a whole number, got "many"'],
    [['--machine', 'hostname=h1,cpu=1,memory=1,tags=ok+b@d'], '--machine #1: tags "b@d": must be letters, digits, "_" or "-"'],
    [['--machine', 'hostname=h1,cpu=1'], '--machine #1: memory: required, e.g. memory=16384'],
    [['--machine', 'hostname=h1,cpu=1,memory=1,status=Gone'], `--machine #1: status: must be one of ${SeedMachineSchema.shape.status.unwrap().options.join(', ')}`],
    [['--machine', 'hostname=a,cpu=1,memory=1', '--machine', 'hostname=a,cpu=1,memory=1'], '--machine #2: hostname: "a" is already the hostname of --machine #1'],
    [['--machine', 'hostname=a,cpu=1,memory=1', '--machine', 'hostname=b,cores=4'], '--machine #2: unknown field "cores"'],
  ];
  for (const [args, line] of cases) {
    const r = await metalfleet('sim', 'maas', ...args);
    t.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    t.true(r.stderr.split('\n').some((l) => l.replace(/^metalfleet: /, '').startsWith(line)), `${args.join(' ')}: ${r.stderr}`);
    t.notRegex(r.stderr, /memoryMb|cpuCount|\[\d+\]/, args.join(' '));
    t.is(r.stdout, '');
  }
});

test('sim maas --help - says --machine replaces the default fleet, and lists every status the schema takes', async (t) => {
  const r = await metalfleet('sim', 'maas', '--help');
  t.is(r.code, 0);
  const help = r.stdout.replace(/\s+/g, ' ');
  t.regex(help, /replaces the default 12 machines, or with --fleet is added to the file's/);
  t.regex(help, /--machine SPEC \(repeatable\) starts the simulator with these machines instead of the default 12/);
  for (const status of SeedMachineSchema.shape.status.unwrap().options) t.true(help.includes(status), status);
  t.regex(help, /A status is one of: Ready, New, Broken, Deployed, Allocated, Failed deployment, Failed commissioning or Retired\./);
});
