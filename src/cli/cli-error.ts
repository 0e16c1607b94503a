// An expected CLI failure: printed as one line, exits with exitCode, no stack.
import { MetalfleetError } from '../api/index.ts';

export class CliError extends MetalfleetError {
  constructor(message: string, readonly exitCode = 1) {
    super('cli', message, false);
    this.name = 'CliError';
  }
}

const READ_REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'is a folder',
  ENOTDIR: 'a part of the path is not a folder',
};

/** Why a file could not be read, in words (`no such file`), for `FLAG FILE: cannot read: WHY`. */
export function readFailure(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return (code !== undefined ? READ_REASONS[code] : undefined) ?? code ?? 'unknown error';
}
