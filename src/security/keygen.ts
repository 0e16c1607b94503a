// `metalfleet keygen`: a new user nkey for signing commands. The seed goes to a file only this
// user can read, never to stdout; the public key is what an operator adds to the allow-list.
import { writeFile } from 'node:fs/promises';
import { createUser } from '@nats-io/nkeys';
import { KeyFileError } from './security-error.ts';

/** Writes a new seed to `file` (mode 0600; an existing file is never overwritten) and returns its public key. */
export async function writeNewSigningKey(file: string): Promise<string> {
  const pair = createUser();
  const publicKey = pair.getPublicKey();
  const seed = new TextDecoder().decode(pair.getSeed());
  try {
    // 'wx': a typo must not replace somebody's key.
    await writeFile(file, `${seed}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unwritable';
    throw new KeyFileError(file, code === 'EEXIST' ? 'already exists: choose another --out, or remove it first' : `cannot write the signing key: ${code}`);
  } finally {
    pair.clear();
  }
  return publicKey;
}
