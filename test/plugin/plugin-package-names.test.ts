// Plugins by npm package name: a package's name may end in ".js" (highlight.js, chart.js,
// @acme/ironic.js) and is still a package, found in the project's node_modules; only ./, ../, /
// and file: URLs are paths. A package that is not installed is named with what was looked for.
import test from 'ava';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PluginError, isPluginPath, loadPlugin } from '../../src/plugin/index.ts';

const pluginSource = (name: string): string =>
  `export default { name: '${name}', contractVersion: 1, resource: 'BareMetalHost', supports: { operations: ['register'] }, create: () => ({}) };\n`;

// A project folder with node_modules/<pkg> holding a plugin named `plugin`.
async function project(t: { teardown(fn: () => Promise<void>): void }, packages: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-project-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  for (const [pkg, plugin] of Object.entries(packages)) {
    const home = join(dir, 'node_modules', ...pkg.split('/'));
    await mkdir(home, { recursive: true });
    await writeFile(join(home, 'package.json'), JSON.stringify({ name: pkg, type: 'module', exports: { '.': './main.js' } }));
    await writeFile(join(home, 'main.js'), pluginSource(plugin));
  }
  return dir;
}

test('plugin names - a package named like a file (highlight.js, @acme/ironic.js) is a package, not a path', (t) => {
  for (const ref of ['highlight.js', 'chart.js', '@acme/ironic.js', 'metalfleet-provisioner-lab']) t.false(isPluginPath(ref), ref);
  for (const ref of ['./lab.mjs', '../lab.js', '/opt/plugins/lab.js', 'file:///opt/plugins/lab.js']) t.true(isPluginPath(ref), ref);
});

test('plugin names - highlight.js and @acme/ironic.js load from the project node_modules', async (t) => {
  const dir = await project(t, { 'highlight.js': 'hl', '@acme/ironic.js': 'acme-ironic' });
  t.is((await loadPlugin('highlight.js', dir)).name, 'hl');
  t.is((await loadPlugin('@acme/ironic.js', dir)).name, 'acme-ironic');
});

test('plugin names - a package installed under a .js name wins over a file of that name in the project', async (t) => {
  const dir = await project(t, { 'chart.js': 'from-package' });
  await writeFile(join(dir, 'chart.js'), pluginSource('from-file'));
  t.is((await loadPlugin('chart.js', dir)).name, 'from-package');
  t.is((await loadPlugin('./chart.js', dir)).name, 'from-file');
});

test('plugin names - a plugin given as a file: URL is a path', async (t) => {
  const dir = await project(t, {});
  await writeFile(join(dir, 'lab.mjs'), pluginSource('by-url'));
  t.is((await loadPlugin(pathToFileURL(join(dir, 'lab.mjs')).href, '/')).name, 'by-url');
});

test('plugin names - a missing .js package is refused naming the plugin and where it was looked for', async (t) => {
  const dir = await project(t, {});
  const err = await t.throwsAsync(loadPlugin('chart.js', dir), { instanceOf: PluginError });
  t.regex(err?.message ?? '', /^provisioner plugin chart\.js: no installed package has this name/);
  t.true(err?.message.includes(join(dir, 'node_modules')), err?.message);
  t.false(err?.retryable);
  const scoped = await t.throwsAsync(loadPlugin('@acme/ironic.js', dir), { instanceOf: PluginError });
  t.regex(scoped?.message ?? '', /^provisioner plugin @acme\/ironic\.js: no installed package has this name/);
});
