// Which Ironic a private Ironic will be: its release, read before it starts, because the
// configuration it needs depends on it and the API's max microversion is only known once it runs.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { z } from 'zod';

export const IronicRelease = z.object({ major: z.number().int().nonnegative(), minor: z.number().int().nonnegative(), patch: z.number().int().nonnegative() });
export type IronicRelease = z.infer<typeof IronicRelease>;

/** Debian 12's Ironic, which the kit was written against: what an unreadable version is taken for. */
export const IRONIC_21_4: IronicRelease = { major: 21, minor: 4, patch: 0 };

/** "21.4.4" or "29.0.1.dev12" (package metadata, `ironic --version`): the first x.y[.z]. */
export function parseIronicRelease(text: string): IronicRelease | null {
  const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  if (m === null) return null;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0) };
}

export function atLeast(v: IronicRelease, major: number, minor = 0): boolean {
  return v.major > major || (v.major === major && v.minor >= minor);
}

export const formatRelease = (v: IronicRelease): string => `${v.major}.${v.minor}.${v.patch}`;

function output(cmd: string, args: readonly string[]): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('error', () => resolve(null));
    child.once('close', (code) => resolve(code === 0 ? out : null));
  });
}

// The interpreter `ironic` runs under, from its script's #! line: the python3 first on PATH may be
// another one (a pyenv's) that does not have Ironic installed at all.
function interpreterOf(script: string): string | null {
  try {
    const first = readFileSync(script, 'utf8').split('\n', 1)[0] ?? '';
    const m = /^#!\s*(\S+)/.exec(first);
    return m?.[1] ?? null;
  } catch {
    return null;
  }
}

let cached: Promise<IronicRelease> | null = null;

/**
 * The installed Ironic's release. The package metadata, read by the very interpreter the `ironic`
 * command runs under, is what will run (a venv's Ironic or Debian's); it answers in well under a
 * second, where `ironic --version` imports all of Ironic (7 s on a loaded 2-core machine), so that
 * is only the fallback. Unreadable: taken for 21.4, the configuration the kit always wrote.
 */
export function installedIronicRelease(): Promise<IronicRelease> {
  cached ??= (async () => {
    const script = (await output('sh', ['-c', 'command -v ironic']))?.trim() ?? '';
    const python = script === '' ? null : interpreterOf(script);
    const viaMetadata = python === null ? null : await output(python, ['-c', 'import importlib.metadata as m; print(m.version("ironic"))']);
    const text = viaMetadata ?? (await output('ironic', ['--version']));
    return (text === null ? null : parseIronicRelease(text)) ?? IRONIC_21_4;
  })();
  return cached;
}
