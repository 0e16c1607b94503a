import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { PluginError } from './plugin-error.ts';

/** `highlight.js` → highlight.js; `@acme/ironic.js/sub` → @acme/ironic.js, sub; null when not a package name. */
export function packageSpecifier(ref: string): { name: string; subpath: string } | null {
  const match = /^((?:@[^/\s]+\/)?[^/\s@][^/\s]*)(?:\/(.+))?$/.exec(ref);
  if (!match) return null;
  return { name: match[1] ?? ref, subpath: match[2] ?? '' };
}

/**
 * The module file of an installed package, looked up as Node looks up a bare import: in
 * node_modules of `fromDir`, then of each folder above it. Null when no folder holds it.
 */
export async function installedPackageEntry(ref: string, fromDir: string): Promise<string | null> {
  const spec = packageSpecifier(ref);
  if (!spec) return null;
  for (let dir = resolve(fromDir); ; dir = dirname(dir)) {
    const home = join(dir, 'node_modules', spec.name);
    if (await isDirectory(home)) return entryFile(ref, spec.subpath ? join(home, spec.subpath) : home);
    if (dirname(dir) === dir) return null;
  }
}

/** A file is its own entry; a folder is a package (its package.json says where) or has an index file. */
export async function entryFile(ref: string, path: string): Promise<string> {
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

function isDirectory(path: string): Promise<boolean> {
  return stat(path).then((info) => info.isDirectory(), () => false);
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
