import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
// The one file, not the index: keygen needs no NATS client loaded.
import { writeNewSigningKey } from '../../security/keygen.ts';
import { CliError } from '../cli-error.ts';
import { errorMessage } from '../../api/index.ts';

// `metalfleet keygen --out FILE`: a new signing key. The seed goes only to FILE (mode 0600, never
// overwritten); stdout gets the public key, which goes into every node's --authorized-keys file.

export function register(program: Command): void {
  program
    .command('keygen')
    .description(descriptionOf('keygen'))
    .requiredOption('--out <file>', 'where to write the new seed (mode 0600; an existing file is kept and is an error)')
    .addHelpText('after', '\nThen, on every node: echo "operator <public key> <your name>" >> authorized-keys\nand send with: metalfleet host ... --signing-key FILE (or METALFLEET_SIGNING_KEY_FILE=FILE)\n')
    .action(async (opts: { out: string }) => {
      await checkOutPath(opts.out);
      let publicKey: string;
      try {
        publicKey = await writeNewSigningKey(opts.out);
      } catch (error) {
        throw new CliError(`--out: ${errorMessage(error)}`, 2);
      }
      process.stdout.write(`${publicKey}\n`);
    });
}

// Said in words before anything is written: the write's own failure was a bare errno
// ("cannot write the signing key: ENOENT"), and a folder was "already exists".
async function checkOutPath(out: string): Promise<void> {
  const refuse = (why: string): never => {
    throw new CliError(`--out ${out}: ${why}`, 2);
  };
  if ((await stat(out).catch(() => null))?.isDirectory()) refuse('is a folder; give a file in it');
  const folder = dirname(out);
  const info = await stat(folder).catch((err: unknown) => (err as NodeJS.ErrnoException).code ?? 'unknown error');
  if (info === 'ENOENT') refuse(`the folder ${folder} does not exist; create it or give another path`);
  if (info === 'ENOTDIR' || (typeof info !== 'string' && !info.isDirectory())) refuse(`${folder} is not a folder`);
}
