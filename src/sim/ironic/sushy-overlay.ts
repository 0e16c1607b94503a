// Debian bookworm's python3-sushy (4.3.3-1) ships without the sushy/standard_registries/ folder,
// so Sushy.registries (sushy/main.py) raises FileNotFoundError on its first line and no registry a
// BMC publishes can be read: Ironic 21.4's cache_bios_settings logs "Cannot get BIOS Registry
// attributes" and keeps every registry field (API 1.74) empty. The overlay is the installed package
// itself, linked entry by entry into a folder put first on PYTHONPATH, plus the missing folder,
// left empty: no line of sushy changes, it only finds no packaged message registries.
import { execFile } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { guardAgainstOrphans } from './orphan-guard.ts';

/** Debian's interpreter, the one python3-sushy and Ironic are installed into. */
export const SYSTEM_PYTHON = '/usr/bin/python3';

let made: Promise<string | null> | undefined;

async function sushyDir(python: string): Promise<string> {
  const { stdout } = await promisify(execFile)(python, ['-c', 'import os, sushy; print(os.path.dirname(sushy.__file__))'], { encoding: 'utf8' });
  return stdout.trim();
}

async function build(python: string): Promise<string | null> {
  const installed = await sushyDir(python);
  if (existsSync(join(installed, 'standard_registries'))) return null;
  const root = await mkdtemp(join(tmpdir(), 'metalfleet-sushy-'));
  process.once('exit', () => rmSync(root, { recursive: true, force: true }));
  // And when this process is killed, which runs no exit handler: the guard removes it then.
  guardAgainstOrphans({ dirs: [root] });
  const pkg = join(root, 'sushy');
  await mkdir(join(pkg, 'standard_registries'), { recursive: true });
  // __pycache__ stays behind: its compiled files name the installed paths.
  for (const entry of await readdir(installed)) if (entry !== '__pycache__') await symlink(join(installed, entry), join(pkg, entry));
  return root;
}

/**
 * A folder to put first on PYTHONPATH so that `import sushy` finds the installed sushy with its
 * standard_registries/ folder; null when the installed sushy has it already. Made once per process.
 */
export function sushyOverlay(python = SYSTEM_PYTHON): Promise<string | null> {
  made ??= build(python);
  return made;
}

/** `env` with the overlay (if one is needed) first on PYTHONPATH. */
export async function withSushyOverlay(env: NodeJS.ProcessEnv, python = SYSTEM_PYTHON): Promise<NodeJS.ProcessEnv> {
  const overlay = await sushyOverlay(python);
  if (overlay === null) return env;
  return { ...env, PYTHONPATH: [overlay, env.PYTHONPATH].filter((p) => p !== undefined && p !== '').join(':') };
}
