// The allow-list a node checks signatures against (`--authorized-keys FILE`): one key a line,
// `<role> <public-key> [name]`, `#` starts a comment. A line we cannot read stops the node at
// start, naming the line: a silently skipped operator is worse than a node that will not start.
import { z } from 'zod';
import { readKeyFile, worldWritableProblem } from './key-file.ts';
import { KeyFileError } from './security-error.ts';

export const ROLES = ['operator', 'viewer'] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

/** An nkey user public key: `U` and 55 base32 characters. */
export const UserPublicKey = z.string().regex(/^U[A-Z2-7]{55}$/, 'must be an nkey user public key ("U" and 55 characters, as "metalfleet keygen" prints)');

const NAME = /^[\x21-\x7e]{1,64}$/;
/** An nkey seed, whole or cut: "S", the kind's letter, then base32 (no public key starts with "S"). */
const SEED_LIKE = /^S[A-Z2-7]{20,}$/;
/** A role as someone would mistype it. */
const WORD = /^[A-Za-z][A-Za-z_-]{0,19}$/;

export interface AuthorizedKey {
  readonly role: Role;
  readonly publicKey: string;
  /** Who holds it, for the audit; the public key's start when the line gives none. */
  readonly name: string;
}

export type AuthorizedKeys = ReadonlyMap<string, AuthorizedKey>;

export function parseAuthorizedKeys(text: string, file: string): AuthorizedKeys {
  const keys = new Map<string, AuthorizedKey>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') return;
    const where = `line ${index + 1}`;
    const fields = line.split(/\s+/);
    // A seed is a secret wherever it sits (the seed file given as this file, a seed pasted as a
    // name): said so, and no field of the line is quoted.
    if (fields.some((f) => SEED_LIKE.test(f))) {
      throw new KeyFileError(file, `${where}: this looks like a seed (a private key), not a public key: remove it from this file (and treat it as exposed) and use the public key "metalfleet keygen" printed`);
    }
    const [role = '', publicKey = '', name, ...rest] = fields;
    if (rest.length > 0) throw new KeyFileError(file, `${where}: expected "<role> <public-key> [name]", got ${rest.length + 3} fields (a name has no spaces)`);
    const r = Role.safeParse(role);
    if (!r.success) {
      // Quoted only when it reads as a mistyped word: anything else may be a secret in the wrong file.
      throw new KeyFileError(file, WORD.test(role)
        ? `${where}: role ${JSON.stringify(role)} must be one of ${ROLES.join(', ')}`
        : `${where}: the first field must be a role, one of ${ROLES.join(', ')}; this file is the allow-list, "<role> <public-key> [name]" a line`);
    }
    const k = UserPublicKey.safeParse(publicKey);
    if (!k.success) {
      const shown = /^[A-Z2-7]*$/.test(publicKey) ? JSON.stringify(publicKey.slice(0, 60)) : `(${publicKey.length} characters)`;
      throw new KeyFileError(file, `${where}: public key ${shown} ${k.error.issues[0]?.message ?? 'is invalid'}`);
    }
    if (name !== undefined && !NAME.test(name)) throw new KeyFileError(file, `${where}: name must be 1-64 printable ASCII characters`);
    if (keys.has(publicKey)) throw new KeyFileError(file, `${where}: key ${publicKey.slice(0, 12)}... is listed twice`);
    keys.set(publicKey, { role: r.data, publicKey, name: name ?? `${publicKey.slice(0, 12)}...` });
  });
  return keys;
}

export async function loadAuthorizedKeys(file: string): Promise<AuthorizedKeys> {
  const keys = parseAuthorizedKeys(await readKeyFile(file, 'authorized keys'), file);
  // Whoever may write the allow-list may add their own key: as sshd's StrictModes, refused.
  const open = await worldWritableProblem(file);
  if (open) throw new KeyFileError(file, `${open} let every user of this machine change who may command the fleet; run "chmod go-w ${file}"`);
  return keys;
}
