// The CLI loads only the command it runs (src/cli/commands/catalog.ts): help, bmc and validate
// never load NATS, the Kubernetes client or the actor runtime, and no command but a node given a
// kubeconfig (and the webhook) loads the Kubernetes client.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { Command } from 'commander';
import { COMMANDS, commandNamed, registerAll } from '../../src/cli/commands/index.ts';
import { FIXTURES, ROOT } from './run.ts';

const HEAVY = {
  kubernetes: /\/node_modules\/@kubernetes\//,
  nats: /\/node_modules\/@nats-io\//,
  runtime: /\/node_modules\/nact\/|\/src\/actors\//,
  metrics: /\/node_modules\/prom-client\//,
};

/** The module URLs one run of the CLI loaded (test/support/record-loads.mjs). */
async function loads(...args: string[]): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'mf-loads-'));
  const file = join(dir, 'loads.txt');
  try {
    await new Promise<void>((resolve, reject) => {
      execFile(process.execPath, ['--import', './test/support/record-loads.mjs', 'bin/metalfleet.js', ...args], { cwd: ROOT, timeout: 90_000, env: { ...process.env, RECORD_LOADS_FILE: file } }, (err, _out, stderr) => {
        if (err && typeof err.code !== 'number') reject(new Error(`${err.message}\n${stderr}`));
        else resolve();
      });
    });
    return (await readFile(file, 'utf8')).split('\n').filter(Boolean);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const heavyIn = (urls: readonly string[]): string[] => Object.entries(HEAVY).filter(([, re]) => urls.some((u) => re.test(u))).map(([name]) => name);

for (const [args, allowed] of [
  [['--help'], []],
  [['bmc', 'redfish://10.0.0.1/redfish/v1/Systems/1', '--json'], []],
  [['validate', `${FIXTURES}/valid.yaml`], []],
  [['hosts', '--help'], ['nats']],
  [['demo', '--help'], ['nats', 'runtime', 'metrics']],
] as const) {
  test(`lazy commands - metalfleet ${args.join(' ')} loads ${allowed.length > 0 ? `only ${allowed.join(', ')} of the heavy parts` : 'none of the heavy parts'}`, async (t) => {
    const urls = await loads(...args);
    t.true(urls.some((u) => u.endsWith('/cli/main.ts') || u.endsWith('/cli/main.js')), `${urls.length} modules recorded`);
    t.deepEqual(heavyIn(urls), [...allowed]);
  });
}

test('lazy commands - the recorder sees the Kubernetes client where it is loaded (node --kubeconfig)', async (t) => {
  // A kubeconfig that does not exist: the node loads the client, then stops with exit 2.
  const urls = await loads('node', '--kubeconfig', '/nonexistent/kubeconfig', '--name', 'x');
  t.true(heavyIn(urls).includes('kubernetes'));
});

test('lazy commands - every catalogue entry loads a module that registers exactly that command, with its description', async (t) => {
  for (const entry of COMMANDS) {
    const program = new Command('metalfleet');
    (await entry.load()).register(program);
    t.deepEqual(program.commands.map((c) => c.name()), [entry.name]);
    t.is(program.commands[0]?.description(), entry.description);
    t.deepEqual(program.commands[0]?.aliases(), [...(entry.aliases ?? [])]);
    // The listing shows the arguments the command really takes.
    const args = program.commands[0]?.registeredArguments.map((a) => (a.required ? `<${a.name()}${a.variadic ? '...' : ''}>` : `[${a.name()}${a.variadic ? '...' : ''}]`)).join(' ') ?? '';
    t.is(args, entry.args ?? '', entry.name);
  }
  t.is(commandNamed('cmd')?.name, 'host');
  t.is((await registerAll(new Command('metalfleet'))).commands.length, COMMANDS.length);
});
