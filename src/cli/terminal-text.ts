// Text from outside (a manifest, a server's error, an argument) on its way to a terminal: control
// characters are shown escaped, never interpreted (an ESC sequence in a host name must not
// recolour or clear the screen), and a line is cut at a length a person can read.

/** Longest line printed as it is; the rest is counted, not shown. */
export const MAX_LINE = 2_000;

// C0 controls but tab and newline, DEL, and the C1 controls (CSI among them).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function terminalText(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const shown = line.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
      return shown.length > MAX_LINE ? `${shown.slice(0, MAX_LINE)}… (${shown.length - MAX_LINE} more characters)` : shown;
    })
    .join('\n');
}
