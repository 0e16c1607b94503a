import { pino } from 'pino';
import type { Logger } from '../ports/index.ts';

// JSON lines on stderr so stdout stays for results; level from a flag or METALFLEET_LOG_LEVEL.
export function createLogger(level: string, bindings: Record<string, unknown> = {}): Logger {
  return pino({ level, base: { ...bindings }, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination(2)) as unknown as Logger;
}
