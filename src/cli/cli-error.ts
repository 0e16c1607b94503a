// An expected CLI failure: printed as one line, exits with exitCode, no stack.
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
    this.name = 'CliError';
  }
}
