import { readdir, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkPlugin, pluginExportOf } from './check-plugin.ts';
import type { ProvisionerPlugin } from './contract.ts';
import { PluginError } from './plugin-error.ts';
import { errorMessage } from '../api/index.ts';

const MODULE_FILE = /\.[cm]?[jt]s$/;
const DECLARATION_FILE = /\.d\.[cm]?ts$/;

/** A path (./x, ../x, /x, or a module file name) rather than a package name. */
export function isPluginPath(ref: string): boolean {
  return ref.startsWith('.') || isAbsolute(ref) || MODULE_FILE.test(ref);
}

/**
 * Loads and checks one plugin, by package name (resolved as metalfleet's own imports are, so a
 * plugin installed beside it is found) or by path (relative to baseDir). Any failure, including
 * a module that throws while loading, is a PluginError that names the plugin.
 */
export async function loadPlugin(ref: string, baseDir: string): Promise<ProvisionerPlugin> {
  const target = isPluginPath(ref) ? pathToFileURL(await entryFile(ref, resolve(baseDir, ref))).href : ref;
  let mod: Record<string, unknown>;
  try {
    mod = await import(target) as Record<string, unknown>;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!isPluginPath(ref) && code === 'ERR_MODULE_NOT_FOUND' && String((err as Error).message).includes(`'${ref}'`)) {
      throw new PluginError(ref, 'no installed package has this name (npm install it beside metalfleet, or give a path)', { cause: err });
    }
    throw new PluginError(ref, `failed to load: ${errorMessage(err)}`, { cause: err });
  }
  return checkPlugin(pluginExportOf(mod), ref);
}

/**
 * Every plugin in a folder: each module file and each sub-folder (a package or an index file).
 * One bad plugin does not stop the others: it comes back in `refused`.
 */
export async function loadPluginFolder(dir: string): Promise<{ plugins: Array<{ plugin: ProvisionerPlugin; source: string }>; refused: PluginError[] }> {
  let entries: string[];
  try {
    entries = (await readdir(dir)).sort();
  } catch (err) {
    throw new PluginError(dir, `plugin folder cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { cause: err });
  }
  const plugins: Array<{ plugin: ProvisionerPlugin; source: string }> = [];
  const refused: PluginError[] = [];
  for (const entry of entries) {
    const path = resolve(dir, entry);
    // A link to nothing is not a folder: as a module file it is refused below, naming itself.
    const isDir = await stat(path).then((info) => info.isDirectory(), () => false);
    if (!isDir && !MODULE_FILE.test(entry)) continue;
    if (DECLARATION_FILE.test(entry) || entry.startsWith('.')) continue;
    try {
      plugins.push({ plugin: await loadPlugin(path, dir), source: path });
    } catch (err) {
      refused.push(err instanceof PluginError ? err : new PluginError(path, String(err)));
    }
  }
  return { plugins, refused };
}

// A folder is a package (its package.json says where the module is) or has an index file.
async function entryFile(ref: string, path: string): Promise<string> {
  let info;
  try {
    info = await stat(path);
  } catch {
    throw new PluginError(ref, `no file or folder at ${path}`);
  }
  if (!info.isDirectory()) return path;
  const pkg = await readFile(join(path, 'package.json'), 'utf8').then((text) => JSON.parse(text) as Record<string, unknown>, () => null);
  const main = pkg ? packageEntry(pkg) : undefined;
  if (main) return join(path, main);
  for (const name of ['index.js', 'index.mjs', 'index.ts']) {
    if (await stat(join(path, name)).then(() => true, () => false)) return join(path, name);
  }
  throw new PluginError(ref, 'the folder has no package.json entry point and no index.js, index.mjs or index.ts');
}

function packageEntry(pkg: Record<string, unknown>): string | undefined {
  const exp = pkg['exports'];
  if (typeof exp === 'string') return exp;
  if (exp && typeof exp === 'object') {
    const root = (exp as Record<string, unknown>)['.'] ?? exp;
    if (typeof root === 'string') return root;
    if (root && typeof root === 'object') {
      const conditional = (root as Record<string, unknown>)['import'] ?? (root as Record<string, unknown>)['default'];
      if (typeof conditional === 'string') return conditional;
    }
  }
  return typeof pkg['main'] === 'string' ? pkg['main'] : undefined;
}
