import { readFile, stat } from 'node:fs/promises';
import { KeyFileError } from './security-error.ts';

const READ_FAILURES: Readonly<Record<string, string>> = {
  ENOENT: 'it does not exist',
  EISDIR: 'it is a folder, not a file',
  EACCES: 'permission denied: this user may not read it',
  ENOTDIR: 'a part of the path is not a folder',
};

/** The text of a key file (a seed, an allow-list); unreadable: a KeyFileError naming file and what it holds, never content. */
export async function readKeyFile(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const words = code ? READ_FAILURES[code] : undefined;
    throw new KeyFileError(file, `cannot read the ${what}: ${code ?? 'unreadable'}${words ? ` (${words})` : ''}`);
  }
}

/**
 * "permissions 0644 are too open" when a private key file is this user's own and its group or
 * others may read or write it, as ssh judges a key (sshkey_perm_ok); null when it is private, not
 * there, or owned by someone else (a Kubernetes Secret mounted as root's is for its mode to say).
 * `uid` is for tests; on a platform without POSIX owners nothing is judged.
 */
export async function exposedKeyProblem(file: string, uid: number | undefined = process.getuid?.()): Promise<string | null> {
  if (uid === undefined) return null;
  const info = await stat(file).catch(() => null);
  if (!info || info.uid !== uid || (info.mode & 0o077) === 0) return null;
  return `${permissions(info.mode)} are too open`;
}

/**
 * "permissions 0666" when every user of the machine may write the file, whoever owns it (sshd's
 * StrictModes refuses such an authorized_keys): null otherwise, or when it is not there.
 */
export async function worldWritableProblem(file: string): Promise<string | null> {
  const info = await stat(file).catch(() => null);
  if (!info || (info.mode & 0o002) === 0) return null;
  return permissions(info.mode);
}

// "permissions 0644", as ssh writes a file's mode in its refusals.
function permissions(mode: number): string {
  return `permissions 0${(mode & 0o777).toString(8).padStart(3, '0')}`;
}
