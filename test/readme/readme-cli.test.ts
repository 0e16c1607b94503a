// README.md against the code: every `npx metalfleet ...` line in its shell blocks names a command
// and flags that exist, the demo and `sim maas` flag tables match the commands' options and
// defaults, every environment variable it documents is read somewhere under src/ or bin/, the
// configuration defaults it states are readEnv's, every `npm run bench -- NAME` is a bench, and
// every repository path it names exists.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { Command } from 'commander';
import type { Option } from 'commander';
import { registerAll } from '../../src/cli/commands/index.ts';
import { readEnv } from '../../src/cli/config.ts';

const root = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');

async function program(): Promise<Command> {
  const p = new Command('metalfleet');
  await registerAll(p);
  return p;
}

/** The command a README line names: `demo`, `sim maas`, `host` (or its alias `cmd`). */
function commandOf(p: Command, words: readonly string[]): { command: Command | undefined; used: number } {
  const top = p.commands.find((c) => c.name() === words[0] || c.aliases().includes(words[0] ?? ''));
  const sub = top?.commands.find((c) => c.name() === words[1]);
  return sub ? { command: sub, used: 2 } : { command: top, used: 1 };
}

function optionNamed(command: Command, flag: string): Option | undefined {
  return command.options.find((o) => o.long === flag || o.short === flag || o.long === flag.replace(/^--no-/, '--'));
}

/** Shell lines of the README's ```sh blocks, continuation lines joined, comments dropped. */
function shellLines(): string[] {
  const lines: string[] = [];
  for (const block of readme.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const joined = (block[1] ?? '').replace(/\\\n\s*/g, ' ');
    for (const line of joined.split('\n')) lines.push(line.replace(/\s#\s.*$/, ''));
  }
  return lines;
}

const metalfleetCalls = (): string[] =>
  shellLines().flatMap((line) => [...line.matchAll(/(?:npx metalfleet|bin\/metalfleet\.js) ([^|;)&]*)/g)].map((m) => (m[1] ?? '').trim()));

test('readme - every npx metalfleet line names a command and options it has', async (t) => {
  const p = await program();
  const calls = metalfleetCalls();
  t.true(calls.length > 20, `expected the README's many metalfleet lines, found ${calls.length}`);
  for (const call of calls) {
    const words = call.split(/\s+/).filter((w) => w !== '');
    const { command } = commandOf(p, words);
    if (!command) {
      t.fail(`README: "metalfleet ${call}": no command ${words[0]}`);
      continue;
    }
    for (const flag of words.filter((w) => /^--?[a-z]/.test(w)).map((w) => w.split('=')[0] ?? w)) {
      if (flag === '--help' || flag === '-h') continue;
      t.truthy(optionNamed(command, flag), `README: "metalfleet ${call}": ${command.name()} has no option ${flag}`);
    }
  }
});

/** The rows of the markdown table that follows `heading` (the first table after it). */
function tableAfter(heading: string): string[][] {
  const start = readme.indexOf(heading);
  if (start < 0) throw new Error(`README has no "${heading}"`);
  const rows: string[][] = [];
  let inTable = false;
  for (const line of readme.slice(start).split('\n')) {
    if (line.startsWith('|')) {
      inTable = true;
      rows.push(line.split('|').slice(1, -1).map((c) => c.trim()));
    } else if (inTable) break;
  }
  return rows.slice(2);
}

const flagsIn = (cell: string): string[] => [...cell.matchAll(/(?:^|[\s`(,])(--?[a-z][a-z-]*)/g)].map((m) => m[1] ?? '');

test('readme - the demo flag table lists demo options with their real defaults', async (t) => {
  const demo = commandOf(await program(), ['demo']).command;
  if (!demo) return t.fail('no demo command');
  const rows = tableAfter('| flag | meaning | default |');
  t.true(rows.length >= 8);
  for (const [flags = ''] of rows) {
    for (const flag of flagsIn(flags)) t.truthy(optionNamed(demo, flag), `demo has no ${flag}`);
  }
  const defaultOf = (flag: string): unknown => optionNamed(demo, flag)?.defaultValue;
  const row = (flag: string): string => rows.find(([f = '']) => flagsIn(f).includes(flag))?.[2] ?? '';
  for (const flag of ['--hosts', '--latency', '--timeout']) t.is(String(defaultOf(flag)), row(flag), `${flag}: README default vs the option's`);
  t.regex(row('--limit'), /PROVISIONING_LIMIT.* 20/);
  t.regex(optionNamed(demo, '--limit')?.description ?? '', /PROVISIONING_LIMIT or 20/);
  t.regex(row('--max-calls'), /50 a backend, the fixture unbounded/);
  t.regex(optionNamed(demo, '--max-calls')?.description ?? '', /fixture=none default=50/);
  // The description says the default; a commander default beside it printed "(default: [])" too.
  t.is(defaultOf('--max-calls'), undefined);
});

test('readme - the sim maas flag table lists sim maas options', async (t) => {
  const sim = commandOf(await program(), ['sim', 'maas']).command;
  if (!sim) return t.fail('no sim maas command');
  const rows = tableAfter('| flag | what it does |');
  t.true(rows.length >= 10);
  for (const [flags = ''] of rows) {
    for (const flag of flagsIn(flags)) t.truthy(optionNamed(sim, flag), `sim maas has no ${flag}`);
  }
});

function sourceText(dir: URL): string {
  let text = '';
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const url = new URL(entry.name + (entry.isDirectory() ? '/' : ''), dir);
    if (entry.isDirectory()) text += sourceText(url);
    else if (/\.(ts|js|mjs)$/.test(entry.name)) text += readFileSync(url, 'utf8');
  }
  return text;
}

test('readme - every environment variable of its tables is read by the code', (t) => {
  const code = sourceText(new URL('src/', root)) + sourceText(new URL('bin/', root));
  const tables = [...tableAfter('| variable | meaning |'), ...tableAfter('| variable | meaning | default |')];
  const names = tables.flatMap(([cell = '']) => [...cell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1] ?? ''));
  t.true(names.length >= 12);
  for (const name of [...names, 'METALFLEET_FROM_SOURCE', 'IRONIC_DRIVER_OVERRIDE', 'MAAS_ENDPOINT', 'MAAS_API_KEY', 'MAAS_SKIP_SWAP', 'METALFLEET_SIGNING_KEY_FILE', 'NATS_PASSWORD', 'NATS_TOKEN', 'NATS_NKEY_SEED', 'NATS_CERT', 'NATS_KEY']) {
    t.true(code.includes(name), `${name} is documented but read nowhere under src/ or bin/`);
  }
});

test('readme - the configuration defaults it states are readEnv defaults', (t) => {
  const env = readEnv({});
  const stated = new Map(tableAfter('| variable | meaning | default |').map(([v = '', , d = '']) => [v.replace(/`/g, ''), d]));
  t.is(String(env.PROVISIONING_LIMIT), stated.get('PROVISIONING_LIMIT') ?? 'not in the table');
  t.is(String(env.MAX_PROVISIONING_RETRIES), stated.get('MAX_PROVISIONING_RETRIES') ?? 'not in the table');
  t.is(String(env.METALFLEET_SHARDS), stated.get('METALFLEET_SHARDS') ?? 'not in the table');
  t.regex(readme, new RegExp(`\`IRONIC_CLIENT_TIMEOUT\` \\| seconds per request \\(${env.IRONIC_CLIENT_TIMEOUT}\\)`));
});

test('readme - every npm run bench -- NAME is a bench', (t) => {
  const run = readFileSync(new URL('bench/run.ts', root), 'utf8');
  const names = [...readme.matchAll(/npm run bench -- ([a-z-]+)/g)].map((m) => m[1] ?? '');
  t.true(names.length >= 10);
  for (const name of new Set(names)) t.regex(run, new RegExp(`(^|\\s)'?${name}'?: \\(\\) => import`, 'm'), `bench ${name} is not in bench/run.ts`);
});

test('readme - every npm run script it names is in package.json', (t) => {
  const scripts = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: Record<string, string> }).scripts;
  for (const m of readme.matchAll(/npm run ([a-z][a-z:-]*)/g)) t.truthy(scripts[m[1] ?? ''], `npm run ${m[1]}`);
});

test('readme - every repository path it names exists', (t) => {
  const cited = [...readme.matchAll(/`((?:src|test|deploy|docs|scripts|bench|examples|bin|reference)\/[^`\s:]*)`|\]\(((?:src|test|deploy|docs|scripts|bench|examples|bin)\/[^)]+)\)/g)]
    .map((m) => m[1] ?? m[2] ?? '')
    .filter((p) => !p.includes('*') && !p.includes('<') && !p.includes('{'));
  t.true(cited.length > 30);
  for (const path of new Set(cited)) t.true(existsSync(new URL(path, root)), `README names ${path}, which does not exist`);
});

test('readme - validate prints problems in the documented form', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mf-readme-validate-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'hosts.yaml');
  writeFileSync(file, 'apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata: {name: h1}\nspec:\n  online: true\n  bmc: {address: ipmi://10.0.0.7, credentialsName: bmc}\n  bootMACAddress: zz\n');
  const cli = new URL('src/cli/main.ts', root).pathname;
  const run = await promisify(execFile)(process.execPath, ['--import=tsx', cli, 'validate', file], { cwd: root.pathname }).then(
    () => ({ code: 0, stdout: '', stderr: '' }),
    (err: { code: number; stdout: string; stderr: string }) => err,
  );
  t.is(run.code, 1);
  t.regex(readme, /`<file>:<line>:<column>: <Kind> <namespace>\/<name>: <field path>: <reason>`/);
  t.regex(run.stdout, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:7:3: BareMetalHost default/h1: spec\\.bootMACAddress: address zz: invalid MAC address$`, 'm'));
  t.regex(run.stderr, /1 object checked, 1 invalid/);
  t.true(statSync(file).isFile());
});

// Flags of other tools the prose quotes: npm's, clusterctl's, podman's, Node's, set -a, and the
// `-operator`/`-viewer` suffixes of Secret names.
const FOREIGN_FLAGS = new Set(['--ignore-scripts', '--omit', '--list-variables', '--cpu-prof', '--cpu-prof-dir', '-a', '-t', '-operator', '-viewer']);

const allCommands = (c: Command): Command[] => [c, ...c.commands.flatMap(allCommands)];

test('readme - every flag its prose quotes is an option of some metalfleet command', async (t) => {
  const options = new Set(allCommands(await program()).flatMap((c) => c.options.flatMap((o) => [o.long, o.short, o.negate ? o.long?.replace(/^--no-/, '--') : undefined])));
  const prose = readme.replace(/```[\s\S]*?```/g, '');
  const quoted = new Set([...prose.matchAll(/`([^`]+)`/g)].flatMap((m) => [...(m[1] ?? '').matchAll(/(?:^|[\s[(])(--?[a-zA-Z][a-zA-Z0-9-]*)/g)].map((f) => f[1] ?? '')));
  t.true(quoted.size > 50);
  for (const flag of quoted) {
    if (FOREIGN_FLAGS.has(flag)) continue;
    t.true(options.has(flag), `README quotes ${flag}, which no metalfleet command has`);
  }
});

test('readme - every metalfleet command its prose quotes exists, with the options quoted beside it', async (t) => {
  const p = await program();
  const prose = readme.replace(/```[\s\S]*?```/g, '');
  const spans = [...prose.matchAll(/`metalfleet ([^`]+)`/g)].map((m) => (m[1] ?? '').replace(/[[\]]/g, ' '));
  t.true(spans.length > 20);
  for (const span of spans) {
    const words = span.split(/\s+/).filter((w) => w !== '');
    const { command } = commandOf(p, words);
    if (!command) {
      t.fail(`README: \`metalfleet ${span}\`: no command ${words[0]}`);
      continue;
    }
    for (const flag of words.filter((w) => /^--?[a-z]/.test(w))) t.truthy(optionNamed(command, flag), `README: \`metalfleet ${span}\`: ${command.name()} has no ${flag}`);
  }
});
