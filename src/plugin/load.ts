import { readdir, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { checkPlugin, pluginExportOf } from './check-plugin.ts';
import type { ProvisionerPlugin } from './contract.ts';
import { entryFile, installedPackageEntry, packageSpecifier } from './package-entry.ts';
import { PluginError } from './plugin-error.ts';
import { errorMessage } from '../api/index.ts';

const MODULE_FILE = /\.[cm]?[jt]s$/;
const DECLARATION_FILE = /\.d\.[cm]?ts$/;
// metalfleet's own folder (src/ or dist/ one level down): a package beside it is found by import().
// As long as a factory may take (registry.ts): a module awaiting its backend at load is as slow.
const DEFAULT_LOAD_TIMEOUT_MS = 60_000;

export interface LoadOptions {
  /** How long a plugin's module may take to load (its top-level awaits) before it is refused. */
  readonly loadTimeoutMs?: number;
}

const METALFLEET_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A path (./x, ../x, /x or a file: URL) rather than a package name. A name ending in .js is a
 * package all the same: highlight.js, chart.js and @acme/ironic.js are names on npm.
 */
export function isPluginPath(ref: string): boolean {
  return /^\.\.?(\/|$)/.test(ref) || ref.startsWith('file:') || isAbsolute(ref);
}

/**
 * Loads and checks one plugin, by package name (from the node_modules of baseDir, the project,
 * or of a folder above it, then as metalfleet's own imports are, so a plugin installed beside it
 * is found) or by path (relative to baseDir). Any failure, including a module that throws while
 * loading, is a PluginError that names the plugin.
 */
export async function loadPlugin(ref: string, baseDir: string, o: LoadOptions = {}): Promise<ProvisionerPlugin> {
  const timeoutMs = o.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS;
  const target = isPluginPath(ref) ? pathToFileURL(await entryFile(ref, pluginPath(ref, baseDir))).href : await packageTarget(ref, baseDir);
  let mod: Record<string, unknown>;
  try {
    mod = await importModule(ref, target, timeoutMs);
  } catch (err) {
    if (!(target === ref && isMissingPackage(err, ref))) throw err;
    // Before packages took precedence a name like lab.mjs was a path: a file there still loads.
    const legacy = MODULE_FILE.test(ref) ? await fileAt(resolve(baseDir, ref)) : null;
    if (!legacy) throw new PluginError(ref, `no installed package has this name (${missingHint(baseDir)})`, { cause: err });
    mod = await importModule(ref, pathToFileURL(legacy).href, timeoutMs);
  }
  return checkPlugin(pluginExportOf(mod), ref);
}

// A module that throws while it loads is the plugin's failure, named; a missing package is the caller's to word.
async function importModule(ref: string, target: string, timeoutMs: number): Promise<Record<string, unknown>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new PluginError(ref, `its module did not finish loading within ${timeoutMs / 1000} s`);
  const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(late), timeoutMs); });
  try {
    return await Promise.race([import(target) as Promise<Record<string, unknown>>, timeout]);
  } catch (err) {
    if (err === late || (target === ref && isMissingPackage(err, ref))) throw err;
    throw new PluginError(ref, `failed to load: ${errorMessage(err)}`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}

function pluginPath(ref: string, baseDir: string): string {
  if (!ref.startsWith('file:')) return resolve(baseDir, ref);
  try {
    return fileURLToPath(ref);
  } catch (err) {
    throw new PluginError(ref, `not a file URL of this machine: ${errorMessage(err)}`, { cause: err });
  }
}

// The project's own copy first; else the bare name, for import() to find beside metalfleet.
async function packageTarget(ref: string, baseDir: string): Promise<string> {
  if (!packageSpecifier(ref)) throw new PluginError(ref, 'is neither a package name nor a path (a path starts with ./, ../, / or file:)');
  const installed = await installedPackageEntry(ref, baseDir);
  return installed ? pathToFileURL(installed).href : ref;
}

// Not found is the package itself missing, not a module it imports (that is "failed to load").
function isMissingPackage(err: unknown, ref: string): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const name = packageSpecifier(ref)?.name ?? ref;
  return code === 'ERR_MODULE_NOT_FOUND' && errorMessage(err).includes(`'${name}'`);
}

function missingHint(baseDir: string): string {
  const inside = !relative(METALFLEET_ROOT, resolve(baseDir)).startsWith('..');
  return inside
    ? 'npm install it beside metalfleet, or give a path'
    : `looked in ${resolve(baseDir, 'node_modules')} and the folders above it, and beside metalfleet: npm install it in the project, or give a path starting with ./`;
}

function fileAt(path: string): Promise<string | null> {
  return stat(path).then(() => path, () => null);
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
