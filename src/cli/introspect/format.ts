// Plain-text building blocks for the introspection commands: human durations and sizes, and
// fixed-column tables cut to the terminal width (a line is truncated, never wrapped; piped, never cut).
import { escapeLineControls } from '../terminal-text.ts';

/** `950ms`, `42s`, `3m12s`, `5h07m`, `2d03h`; `-` when unknown. */
/** A pool's stall time: '0s' is the figure to see; anything else is time a free slot sat beside a waiter. */
export function formatStall(seconds: number | undefined): string {
  return seconds === undefined || seconds <= 0 ? '0s' : formatDuration(Math.max(1, Math.round(seconds * 1000)));
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '-';
  if (ms < 0) ms = 0;
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  const s = Math.floor(ms / 1_000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d${String(h % 24).padStart(2, '0')}h`;
}

/** `812B`, `3.4KiB`, `512.0MiB`, `1.2GiB`. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '-';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${Math.round(value)}B` : `${value.toFixed(1)}${units[unit]}`;
}

/** Cuts `text` to `width` characters, the last one an ellipsis when something was cut. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  // By code point, so a cut never splits a surrogate pair.
  const chars = [...text];
  if (chars.length <= width) return text;
  return width === 1 ? '…' : `${chars.slice(0, width - 1).join('')}…`;
}

/**
 * One line: control characters (a newline in an error message) become spaces; C1, separator and
 * bidi controls are shown escaped (`\x9b`, `\u{202e}`), never passed to the terminal.
 */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return escapeLineControls(text.replace(/[\u0000-\u001f\u007f]+/g, ' '));
}

function visibleLength(text: string): number {
  return [...text].length;
}

function pad(text: string, width: number, align: 'left' | 'right'): string {
  const gap = Math.max(0, width - visibleLength(text));
  return align === 'right' ? ' '.repeat(gap) + text : text + ' '.repeat(gap);
}

export interface Column<R> {
  readonly header: string;
  readonly value: (row: R) => string;
  readonly align?: 'left' | 'right';
  /** A cell longer than this is cut, the column never wider, when the table has a finite width. */
  readonly max?: number;
}

export interface TableOptions {
  /** Every line is cut to this many characters (Infinity: never). */
  readonly width: number;
  /** Spaces between columns. */
  readonly gap?: number;
}

/**
 * A header line and one line per row; each column as wide as its widest cell (up to `max`), the
 * last column left unpadded, every line cut to `width`.
 */
export function renderTable<R>(columns: readonly Column<R>[], rows: readonly R[], options: TableOptions): string[] {
  const gap = ' '.repeat(options.gap ?? 2);
  // Unbounded (piped) output cuts nothing, not even a column: what was cut could not be grepped.
  const bounded = Number.isFinite(options.width);
  const cells = rows.map((row) => columns.map((c) => {
    const text = oneLine(c.value(row));
    return c.max !== undefined && bounded ? truncate(text, c.max) : text;
  }));
  const widths = columns.map((c, i) => Math.max(visibleLength(c.header), ...cells.map((r) => visibleLength(r[i] ?? ''))));
  const line = (values: readonly string[]): string => {
    const parts = values.map((v, i) => (i === values.length - 1 && columns[i]?.align !== 'right' ? v : pad(v, widths[i] ?? 0, columns[i]?.align ?? 'left')));
    return truncate(parts.join(gap).trimEnd(), options.width);
  };
  return [line(columns.map((c) => c.header)), ...cells.map(line)];
}

/** `key: value` lines with the keys aligned, each cut to `width`. */
export function renderFields(fields: ReadonlyArray<readonly [string, string]>, width: number, indent = ''): string[] {
  const keyWidth = Math.max(0, ...fields.map(([k]) => k.length));
  return fields.map(([k, v]) => truncate(`${indent}${`${k}:`.padEnd(keyWidth + 1)} ${oneLine(v)}`, width));
}

/**
 * The width to lay a table out in: the terminal's; no limit when the output is piped or
 * redirected, as kubectl does (a line cut at 120 hid the end of an error message from grep).
 */
export function outputWidth(stream: { isTTY?: boolean; columns?: number } = process.stdout): number {
  if (!stream.isTTY) return Number.POSITIVE_INFINITY;
  return stream.columns && stream.columns > 0 ? stream.columns : 120;
}
