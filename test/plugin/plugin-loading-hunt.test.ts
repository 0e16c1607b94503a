// Plugin loading, hunted: CommonJS plugins (plain, TypeScript-compiled, named export) load by path
// and from a folder; a dangling link in a plugin folder is one refused entry, not a failed folder.
import test from 'ava';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { pluginExportOf } from '../../src/plugin/check-plugin.ts';
import { loadPlugin, loadPluginFolder } from '../../src/plugin/index.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CJS = 'test/fixtures/plugins/cjs';

for (const [file, name] of [['plain.cjs', 'cjs-plain'], ['ts-compiled.cjs', 'cjs-default'], ['named.cjs', 'cjs-named']] as const) {
  test(`plugin hunt - a CommonJS plugin (${file}) loads by path`, async (t) => {
    const plugin = await loadPlugin(`./${CJS}/${file}`, ROOT);
    t.is(plugin.name, name);
  });
}

// Under plain node (the CLI runs dist/ so), import() of a CommonJS module gives its exports object
// as `default`, the names cjs-module-lexer finds beside it; tsx, which the tests run under, unwraps
// __esModule itself, so the namespace node gives is built here as node builds it.
test('plugin hunt - the namespace plain node gives a TypeScript-compiled CommonJS plugin yields its default export', (t) => {
  const exported = createRequire(import.meta.url)(`../../${CJS}/ts-compiled.cjs`) as Record<string, unknown>;
  const plugin = pluginExportOf({ __esModule: true, default: exported }) as { name?: string };
  t.is(plugin.name, 'cjs-default');
});

test('plugin hunt - a .cjs plugin given without ./ is a path, not a package name', async (t) => {
  const plugin = await loadPlugin(`${CJS}/plain.cjs`, ROOT);
  t.is(plugin.name, 'cjs-plain');
});

test('plugin hunt - a plugin folder loads its .cjs plugins too', async (t) => {
  const { plugins, refused } = await loadPluginFolder(join(ROOT, CJS));
  t.deepEqual(refused.map((r) => r.message), []);
  t.deepEqual(plugins.map((p) => p.plugin.name).sort(), ['cjs-default', 'cjs-named', 'cjs-plain']);
});

test('plugin hunt - a dangling link in a plugin folder is refused by name; the other plugins still load', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-plugins-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'good.mjs'), "export default { name: 'good', contractVersion: 1, resource: 'BareMetalHost', supports: { operations: ['register'] }, create: () => ({}) };\n");
  await symlink(join(dir, 'removed-plugin.mjs'), join(dir, 'gone.mjs'));
  const { plugins, refused } = await loadPluginFolder(dir);
  t.deepEqual(plugins.map((p) => p.plugin.name), ['good']);
  t.is(refused.length, 1);
  t.regex(refused[0]?.message ?? '', /gone\.mjs: no file or folder at /);
});
