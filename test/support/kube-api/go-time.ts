// metav1.Time (RFC 3339, whole seconds) and metav1.MicroTime (exactly six fraction digits) as
// the API server decodes and re-encodes them: always UTC on the way out.

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const RFC3339_MICRO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;
const TIME_LAYOUT = '2006-01-02T15:04:05Z07:00';
const MICRO_LAYOUT = '2006-01-02T15:04:05.000000Z07:00';

/** The decode error for a bad time, or undefined when it parses. */
export function timeError(value: string): string | undefined {
  if (RFC3339.test(value) && !Number.isNaN(Date.parse(value))) return undefined;
  return `parsing time ${JSON.stringify(value)} as ${JSON.stringify(TIME_LAYOUT)}: cannot parse ${JSON.stringify(value)} as "2006"`;
}

/** RFC 3339 in UTC with whole seconds, as metav1.Time marshals. */
export function formatTime(value: string | Date): string {
  const d = typeof value === 'string' ? new Date(value) : value;
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// [?] From Go's time.Parse semantics: `.000000` in the layout takes exactly six digits, so a
// JavaScript Date's `.709Z` fails at the fraction.
export function microTimeError(value: string): string | undefined {
  if (RFC3339_MICRO.test(value) && !Number.isNaN(Date.parse(value))) return undefined;
  const m = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.exec(value);
  const rest = m ? value.slice(m[0].length) : value;
  const what = m ? '.000000' : '2006';
  return `parsing time ${JSON.stringify(value)} as ${JSON.stringify(MICRO_LAYOUT)}: cannot parse ${JSON.stringify(rest)} as ${JSON.stringify(what)}`;
}

/** UTC with six fraction digits, as metav1.MicroTime marshals (offsets are whole minutes, so
 * the fraction of the input carries over unchanged). */
export function formatMicroTime(value: string): string {
  const micros = /\.(\d{6})/.exec(value)?.[1] ?? '000000';
  return `${new Date(value).toISOString().slice(0, 19)}.${micros}Z`;
}

export function nowTime(): string {
  return formatTime(new Date());
}
