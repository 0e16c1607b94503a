import { readFile } from 'node:fs/promises';
import { KeyFileError } from './security-error.ts';

/** The text of a key file (a seed, an allow-list); unreadable: a KeyFileError naming file and what it holds, never content. */
export async function readKeyFile(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new KeyFileError(file, `cannot read the ${what}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
}
