import type { Logger } from '../../src/ports/index.ts';

/** One line a node logged: its level, its fields (a child's bindings merged in) and its message. */
export interface LogLine {
  readonly level: string;
  readonly obj: Record<string, unknown>;
  readonly msg: string;
}

/** A Logger that pushes every line to `lines`, its children's with their bindings. */
export function recordingLogger(lines: LogLine[], bindings: Record<string, unknown> = {}): Logger {
  const at = (level: string) => (obj: object, msg?: string): void => {
    lines.push({ level, obj: { ...bindings, ...obj }, msg: msg ?? '' });
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: (b) => recordingLogger(lines, { ...bindings, ...b }) };
}
