// -f DIR and -f - read as kubectl reads them: a directory's .json, .yaml and .yml files (not its
// subdirectories, not other files), and standard input. Both were "cannot read" (is a
// directory; no such file) in validate, apply and demo -f.
import { execFile, execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { lines, ROOT, type Run } from './run.ts';

const HOST = 'apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata:\n  name: h1\n  namespace: lab\nspec:\n  online: true\n  bmc:\n    address: ipmi://192.0.2.1\n    credentialsName: bmc\n';
// Invalid on line 2, column 10: "yes" quoted is a string in JSON.
const JSON_HOST = '{"apiVersion":"metal3.io/v1alpha1","kind":"BareMetalHost","metadata":{"name":"j1","namespace":"lab"},\n "spec":{"online":"yes","bmc":{"address":"ipmi://192.0.2.1","credentialsName":"bmc"}}}\n';

function metalfleetWithInput(input: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['bin/metalfleet.js', ...args], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
    });
    child.stdin?.end(input);
  });
}

async function fixtureDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mf-inputs-'));
  await mkdir(join(dir, 'hosts', 'nested'), { recursive: true });
  await mkdir(join(dir, 'empty'));
  await writeFile(join(dir, 'hosts', 'a.yaml'), HOST);
  await writeFile(join(dir, 'hosts', 'b.json'), JSON_HOST);
  await writeFile(join(dir, 'hosts', 'notes.txt'), 'not a manifest: {');
  await writeFile(join(dir, 'hosts', 'nested', 'c.yaml'), HOST.replace('name: h1', 'name: h3'));
  return dir;
}

function kubectlNames(path: string): string[] {
  const out = execFileSync('kubectl', ['annotate', '--local', '-o', 'name', '-f', path, 'probe=x'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return lines(out).sort();
}

test('manifest inputs - a directory is its .yaml, .yml and .json files, as kubectl -f DIR reads it', async (t) => {
  const dir = await fixtureDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const hosts = join(dir, 'hosts');
  t.deepEqual(kubectlNames(hosts), ['baremetalhost.metal3.io/h1', 'baremetalhost.metal3.io/j1']);
  const validate = await metalfleetWithInput('', 'validate', hosts);
  t.is(validate.code, 1, validate.stderr);
  t.deepEqual(lines(validate.stdout), [`${hosts}/b.json:2:10: BareMetalHost lab/j1: spec.online: Invalid input: expected boolean, received string`]);
  t.is(lines(validate.stderr).at(-1), '2 objects checked, 1 invalid');
  const apply = await metalfleetWithInput('', 'apply', '-f', hosts, '--nats', 'nats://127.0.0.1:1');
  t.is(apply.code, 1, apply.stderr);
  t.true(lines(apply.stderr).includes(`${hosts}/b.json:2:10: BareMetalHost lab/j1: spec.online: Invalid input: expected boolean, received string`), apply.stderr);
  const demo = await metalfleetWithInput('', 'demo', '-f', hosts, '--json', '--timeout', '5');
  t.is(demo.code, 1, demo.stderr);
  t.regex(demo.stderr, new RegExp(`${hosts.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}/b\\.json:2:10: BareMetalHost lab/j1: spec\\.online: `));
});

test('manifest inputs - a directory with no manifest file is refused naming it, as kubectl refuses it', async (t) => {
  const dir = await fixtureDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const empty = join(dir, 'empty');
  t.throws(() => kubectlNames(empty));
  const r = await metalfleetWithInput('', 'validate', empty);
  t.is(r.code, 1);
  t.true(lines(r.stderr).includes(`error: ${empty}: no .json, .yaml or .yml file in this directory`), r.stderr);
});

test('manifest inputs - -f - reads standard input in validate, apply and demo -f, named STDIN', async (t) => {
  const validate = await metalfleetWithInput(JSON_HOST, 'validate', '-f', '-');
  t.is(validate.code, 1, validate.stderr);
  t.deepEqual(lines(validate.stdout), ['STDIN:2:10: BareMetalHost lab/j1: spec.online: Invalid input: expected boolean, received string']);
  const apply = await metalfleetWithInput(JSON_HOST, 'apply', '-f', '-', '--nats', 'nats://127.0.0.1:1');
  t.is(apply.code, 1, apply.stderr);
  t.true(lines(apply.stderr).includes('STDIN:2:10: BareMetalHost lab/j1: spec.online: Invalid input: expected boolean, received string'), apply.stderr);
  const demo = await metalfleetWithInput(JSON_HOST, 'demo', '-f', '-', '--json', '--timeout', '5');
  t.is(demo.code, 1, demo.stderr);
  t.regex(demo.stderr, /^STDIN:2:10: BareMetalHost lab\/j1: spec\.online: /m);
  // A valid host from standard input is checked, not "no such file".
  const valid = await metalfleetWithInput(HOST, 'validate', '-');
  t.is(valid.code, 0, valid.stderr);
  t.deepEqual(lines(valid.stderr), ['1 object checked, 0 invalid']);
});
