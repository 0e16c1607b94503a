// A sender's signing key: an nkey user seed (`SU...`), as `nsc` and `metalfleet keygen` write it.
// The seed lives only in a private field: JSON.stringify, util.inspect and logs see the public key.
import { inspect } from 'node:util';
import { fromSeed, type KeyPair } from '@nats-io/nkeys';
import { exposedKeyProblem, readKeyFile } from './key-file.ts';
import { KeyFileError } from './security-error.ts';

const SEED_FORM = /^SU[A-Z2-7]{56}$/;

export class SigningKey {
  readonly #pair: KeyPair;
  /** `U...`: what the allow-list names. */
  readonly publicKey: string;

  private constructor(pair: KeyPair) {
    this.#pair = pair;
    this.publicKey = pair.getPublicKey();
  }

  /** From seed text; `where` names its source in the error (a file, an environment variable), never the seed. */
  static fromSeed(seed: string, where: string): SigningKey {
    const text = seed.trim();
    if (/-----BEGIN NATS USER JWT-----/.test(text)) {
      throw new KeyFileError(where, 'is a NATS creds file (a user JWT and its seed), not a signing key: give the seed file "metalfleet keygen --out FILE" wrote');
    }
    if (!SEED_FORM.test(text)) {
      throw new KeyFileError(where, 'is not an nkey user seed (one line starting "SU", 58 characters): create one with "metalfleet keygen --out FILE"');
    }
    try {
      return new SigningKey(fromSeed(new TextEncoder().encode(text)));
    } catch (error) {
      // The nkeys error text is about the checksum or prefix, never the seed itself, but say it in our words.
      throw new KeyFileError(where, `is not a valid nkey user seed (${error instanceof Error ? error.name : 'bad seed'}): create one with "metalfleet keygen --out FILE"`);
    }
  }

  sign(data: Uint8Array): Uint8Array {
    return this.#pair.sign(data);
  }

  toJSON(): object {
    return { publicKey: this.publicKey };
  }

  [inspect.custom](): string {
    return `SigningKey ${this.publicKey}`;
  }
}

/** Reads a seed file (`--signing-key FILE`, METALFLEET_SIGNING_KEY_FILE). */
export async function loadSigningKey(file: string): Promise<SigningKey> {
  const key = SigningKey.fromSeed(await readKeyFile(file, 'signing key'), file);
  // After the content: a file that is no seed at all (an allow-list given here) is named as that.
  const open = await exposedKeyProblem(file);
  if (open) throw new KeyFileError(file, `${open}: other users may read or change this signing key; run "chmod 600 ${file}" (a private key must be its owner's alone, as ssh requires)`);
  return key;
}
