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

// Everything that can break a line or change how the rest of it reads: every C0 and C1 control
// (newline, CR and tab too), DEL, the Unicode line and paragraph separators, and the bidi
// controls that reorder what follows them on screen.
// eslint-disable-next-line no-control-regex
const NOT_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `\xNN` for the 8-bit characters, `\u{NNNN}` for the others. */
function escaped(c: string): string {
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/**
 * A value from outside printed as part of one line (an audit field): nothing in it can end the
 * line or pass for another, so a newline in a request id cannot print a line of its own.
 */
/** Every control, separator and bidi control escaped (`\x9b`, `\u{202e}`), nothing cut. */
export function escapeLineControls(text: string): string {
  return text.replace(NOT_ONE_LINE, escaped);
}

export function oneLine(text: string): string {
  const shown = escapeLineControls(text);
  return shown.length > MAX_LINE ? `${shown.slice(0, MAX_LINE)}… (${shown.length - MAX_LINE} more characters)` : shown;
}

/** JSON on one line with the characters JSON.stringify leaves raw (C1, U+2028/9, bidi) as \uNNNN. */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(NOT_ONE_LINE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
