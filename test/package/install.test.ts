// The package as a user gets it: packed, installed into an empty project with plain Node (no tsx,
// no dev dependencies), and used there — the CLI's demo, `metalfleet/api`, the example plugin by
// package name, and a consumer type-checked against the shipped declarations.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

interface Run { code: number; stdout: string; stderr: string }

// The user's environment: none of the test run's switches to the TypeScript sources.
function userEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.METALFLEET_FROM_SOURCE;
  delete env.NODE_OPTIONS;
  return env;
}

function run(cmd: string, args: readonly string[], cwd: string, timeoutMs = 300_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, env: userEnv(), timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

const lastJson = (stdout: string): Record<string, unknown> => JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;

test.serial('package - packed and installed with plain Node, it runs the demo, serves metalfleet/api, loads a plugin by name and type-checks a consumer', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-install-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const packs = join(dir, 'packs');
  const app = join(dir, 'app');
  await mkdir(packs);
  await mkdir(app);
  for (const [from, what] of [[ROOT, 'metalfleet'], [join(ROOT, 'examples', 'provisioner-plugin'), 'the example plugin']] as const) {
    const packed = await run('npm', ['pack', '--silent', '--pack-destination', packs], from);
    t.is(packed.code, 0, `npm pack of ${what}: ${packed.stderr}`);
  }
  const tarballs = (await readdir(packs)).filter((f) => f.endsWith('.tgz')).map((f) => join(packs, f));
  t.is(tarballs.length, 2, tarballs.join(' '));
  const tarball = tarballs.find((f) => /metalfleet-\d/.test(f)) ?? '';
  const listed = await run('tar', ['tzf', tarball], dir);
  const entries = listed.stdout.split('\n').filter(Boolean).map((e) => e.replace(/^package\//, ''));
  // What users need and nothing else: no tests, benchmarks, fixtures, scripts or sources.
  t.deepEqual(entries.filter((e) => /^(src|test|bench|scripts|examples|\.ci)\/|fixtures|\.test\./.test(e)), []);
  for (const needed of ['bin/metalfleet.js', 'dist/cli/main.js', 'dist/api/index.js', 'dist/api/index.d.ts', 'dist/plugin/index.d.ts', 'dist/index.d.ts', 'dist/ui-page/app.js', 'README.md', 'CHANGELOG.md', 'package.json', 'deploy/crds/metal3.io_baremetalhosts.yaml']) {
    t.true(entries.includes(needed), `the tarball has ${needed}`);
  }
  t.log(`tarball: ${entries.length} files`);

  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  const installed = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--omit=dev', ...tarballs], app, 600_000);
  t.is(installed.code, 0, installed.stderr);
  t.false(existsSync(join(app, 'node_modules', 'tsx')), 'tsx is no runtime dependency');
  t.false(existsSync(join(app, 'node_modules', 'metalfleet', 'src')), 'the sources are not shipped');
  t.false(existsSync(join(app, 'node_modules', 'metalfleet', 'test')), 'the tests are not shipped');

  const demo = await run('npx', ['--no-install', 'metalfleet', 'demo', '--hosts', '20', '--json', '--no-progress', '--log-level', 'error'], app);
  t.is(demo.code, 0, demo.stderr);
  t.like(lastJson(demo.stdout), { ok: true, hosts: 20, reached: 20 });

  await writeFile(join(app, 'validate.mjs'), `
import { validateBareMetalHost } from 'metalfleet/api';
const good = { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'h1', namespace: 'lab' },
  spec: { online: true, bmc: { address: 'redfish://10.0.0.9/redfish/v1/Systems/1', credentialsName: 'bmc' }, bootMACAddress: '52:54:00:00:00:09' } };
const bad = { ...good, spec: { ...good.spec, bmc: { address: 'nope://x', credentialsName: 'bmc' } } };
console.log(JSON.stringify({ good: validateBareMetalHost(good), bad: validateBareMetalHost(bad).map((e) => e.path) }));
`);
  const api = await run('node', ['validate.mjs'], app);
  t.is(api.code, 0, api.stderr);
  const verdict = lastJson(api.stdout) as { good: unknown[]; bad: string[] };
  t.deepEqual(verdict.good, []);
  t.true(verdict.bad.some((p) => p.includes('bmc')), JSON.stringify(verdict.bad));

  await copyFile(join(ROOT, 'test', 'fixtures', 'plugins', 'lab-hosts.yaml'), join(app, 'lab-hosts.yaml'));
  const plugin = await run('npx', ['--no-install', 'metalfleet', 'demo', '-f', 'lab-hosts.yaml', '--plugin', 'metalfleet-provisioner-lab', '--provisioner-option', 'lab.provisionMs=1', '--json', '--no-progress', '--log-level', 'error'], app);
  t.is(plugin.code, 0, plugin.stderr);
  t.like(lastJson(plugin.stdout), { ok: true, hosts: 4, byState: { provisioned: 4 } });

  // Types: a consumer that uses the API and the plugin contract checks; one that misuses them fails.
  await writeFile(join(app, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, skipLibCheck: true, types: [] },
    include: ['consumer.ts'],
  }));
  await writeFile(join(app, 'consumer.ts'), `
import { BareMetalHost, validateBareMetalHost, type FieldError } from 'metalfleet/api';
import type { Provisioner, HostData } from 'metalfleet/plugin';
const host: BareMetalHost = BareMetalHost.parse({});
const errors: FieldError[] = validateBareMetalHost(host);
export const names: string[] = errors.map((e) => e.path);
export type Call = Provisioner['register'];
export const address = (h: HostData): string => h.spec.bmc?.address ?? '';
`);
  const typed = await run('node', [TSC, '-p', 'tsconfig.json'], app);
  t.is(typed.code, 0, typed.stdout + typed.stderr);
  await writeFile(join(app, 'consumer.ts'), `
import { validateBareMetalHost } from 'metalfleet/api';
export const count: number = validateBareMetalHost({});
`);
  const mistyped = await run('node', [TSC, '-p', 'tsconfig.json'], app);
  t.not(mistyped.code, 0, 'a misuse of the shipped types is an error');
  t.regex(mistyped.stdout, /consumer\.ts.*error TS2322/);
});
