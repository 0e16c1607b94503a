// An expected CLI failure: printed as one line, exits with exitCode, no stack.
import { MetalfleetError } from '../api/index.ts';

export class CliError extends MetalfleetError {
  constructor(message: string, readonly exitCode = 1) {
    super('cli', message, false);
    this.name = 'CliError';
  }
}
