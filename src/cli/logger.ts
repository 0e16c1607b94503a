import { pino } from 'pino';
import type { Logger } from '../ports/index.ts';
import { CliError } from './cli-error.ts';

// JSON lines on stderr so stdout stays for results; level from a flag or METALFLEET_LOG_LEVEL.
export function createLogger(level: string, bindings: Record<string, unknown> = {}): Logger {
  return pino({ level, base: { ...bindings }, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination(2)) as unknown as Logger;
}

export const LOG_LEVELS: readonly string[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/**
 * The --log-level flag's parser. Checked as the flag is read: an unknown level otherwise reached
 * pino, whose "default level:loud must be included in custom levels" named neither the flag nor
 * the levels there are.
 */
export function logLevelFlag(value: string): string {
  if (!LOG_LEVELS.includes(value)) throw new CliError(`--log-level: expected one of ${LOG_LEVELS.join(', ')}, got "${value}"`, 2);
  return value;
}
