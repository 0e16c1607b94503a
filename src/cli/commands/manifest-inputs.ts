import { readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { readManifestStream, readManifestText, type ManifestText } from '../../api/manifest-file.ts';

// What -f names, as kubectl reads it: `-` is standard input (named STDIN in messages, as kubectl
// names it), a directory is its .json, .yaml and .yml files in name order, without its
// subdirectories (kubectl reads those only with -R) or other files. Both were refused as
// "cannot read" (no such file; is a directory) in validate, apply and demo -f.

export const STDIN = 'STDIN';
const EXTENSIONS = new Set(['.json', '.yaml', '.yml']);

/** One manifest to read, or why a path given names none. */
export type ManifestInput = { readonly file: string; readonly error?: undefined } | { readonly file: string; readonly error: string };

/** The manifests `given` names, in order: files as given, a directory's manifest files, `-` as STDIN. */
export async function manifestInputs(given: readonly string[]): Promise<ManifestInput[]> {
  const out: ManifestInput[] = [];
  for (const path of given) {
    if (path === '-' || path === STDIN) {
      // A file named STDIN is read as ./STDIN: the bare name means standard input.
      out.push({ file: path === '-' ? STDIN : `./${STDIN}` });
      continue;
    }
    const info = await stat(path).catch(() => null);
    // A path that is not there or not readable is the reader's to name (readManifestText).
    if (!info?.isDirectory()) {
      out.push({ file: path });
      continue;
    }
    const names = await readdir(path, { withFileTypes: true }).catch(() => null);
    if (names === null) {
      out.push({ file: path, error: 'cannot read: permission denied' });
      continue;
    }
    const files = names.filter((e) => !e.isDirectory() && EXTENSIONS.has(extname(e.name))).map((e) => join(path, e.name)).sort();
    if (files.length === 0) out.push({ file: path, error: 'no .json, .yaml or .yml file in this directory' });
    for (const file of files) out.push({ file });
  }
  return out;
}

// Standard input can be read once; apply reads its manifests twice (validation, then the apply).
let stdin: Promise<ManifestText> | null = null;

/** The text of one input; STDIN is read once, with the same size limit as a file. */
export function readManifestInput(file: string): Promise<ManifestText> {
  if (file !== STDIN) return readManifestText(file);
  stdin ??= readManifestStream(process.stdin);
  return stdin;
}
