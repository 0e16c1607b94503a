// --save FILE: the fleet as it is when the simulator stops, in the format --fleet reads, so a
// later `sim maas --fleet FILE` starts where this one ended.
import { constants } from 'node:fs';
import { access, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { stringify } from 'yaml';
import type { SeedMachine } from '../../sim/maas/index.ts';
import { CliError } from '../cli-error.ts';

const HEADER = '# metalfleet sim maas fleet: load it with `metalfleet sim maas --fleet FILE`\n';

/** Refuses a --save FILE whose folder cannot be written, at start rather than at the stop. */
export async function checkSaveTarget(file: string): Promise<void> {
  try {
    await access(dirname(file), constants.W_OK);
  } catch (err) {
    throw new CliError(`--save ${file}: its folder cannot be written (${(err as NodeJS.ErrnoException).code ?? 'error'}); the simulator did not start`, 1);
  }
}

export async function saveFleet(file: string, machines: readonly SeedMachine[]): Promise<void> {
  // Write beside it and rename, so a stop mid-write never leaves half a fleet where one was.
  const partial = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(partial, HEADER + stringify(machines), 'utf8');
    await rename(partial, file);
  } catch (err) {
    throw new CliError(`--save ${file}: cannot write the fleet (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 1);
  }
}
