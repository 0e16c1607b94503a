// bin/metalfleet.js picks what it runs: dist/ by default, the TypeScript sources through tsx with
// METALFLEET_FROM_SOURCE=1, and with `auto` (what the tests set) dist/ only when it was built
// after every file under src/ last changed, so a test never runs stale compiled code.
// Checked on a copy of the bin beside a dist/ and a src/ that each say which one ran.
import test from 'ava';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../cli/run.ts';

async function tree(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mf-bin-'));
  await mkdir(join(dir, 'bin'));
  await mkdir(join(dir, 'dist/cli'), { recursive: true });
  await mkdir(join(dir, 'src/cli/commands'), { recursive: true });
  await copyFile(join(ROOT, 'bin/metalfleet.js'), join(dir, 'bin/metalfleet.js'));
  await writeFile(join(dir, 'package.json'), '{"type":"module"}\n');
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  await writeFile(join(dir, 'dist/cli/main.js'), "process.stdout.write('dist');\n");
  await writeFile(join(dir, 'src/cli/main.ts'), "const from: string = 'src';\nprocess.stdout.write(from);\n");
  await writeFile(join(dir, 'src/cli/commands/any.ts'), 'export {};\n');
  return dir;
}

/** Sets a file's times to `at` seconds since the epoch. */
const stamp = (path: string, at: number): Promise<void> => utimes(path, at, at);

function run(dir: string, mode: string | undefined): Promise<string> {
  const env = { ...process.env };
  if (mode === undefined) delete env.METALFLEET_FROM_SOURCE;
  else env.METALFLEET_FROM_SOURCE = mode;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [join(dir, 'bin/metalfleet.js')], { env, timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
  });
}

test('bin - dist/ by default and with auto when built after every source change; the sources with 1, or with auto when one changed since', async (t) => {
  const dir = await tree();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const sources = ['src', 'src/cli', 'src/cli/main.ts', 'src/cli/commands', 'src/cli/commands/any.ts'].map((p) => join(dir, p));
  for (const p of sources) await stamp(p, 1_000_000);
  await stamp(join(dir, 'dist/cli/main.js'), 2_000_000);
  t.is(await run(dir, undefined), 'dist');
  t.is(await run(dir, 'auto'), 'dist', 'built after the sources');
  t.is(await run(dir, '1'), 'src');
  // One file deep in src/ changed after the build: auto runs the sources.
  await stamp(join(dir, 'src/cli/commands/any.ts'), 3_000_000);
  t.is(await run(dir, 'auto'), 'src', 'a source changed after the build');
  t.is(await run(dir, undefined), 'dist', 'without auto the command still runs what was built');
});

test('bin - auto runs the sources when dist/ was never built', async (t) => {
  const dir = await tree();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await rm(join(dir, 'dist'), { recursive: true });
  t.is(await run(dir, 'auto'), 'src');
});
