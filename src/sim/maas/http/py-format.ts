// MAAS builds some error texts with Python's str()/repr() and json.dumps; clients match on them,
// so the simulator writes them the same way.

/** repr() of a Python str: single quotes unless the text has ' and no ", escapes as CPython. */
export function pyStr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + quote;
}

/** str() of the list MAAS logs and quotes on a failed allocate: [('cpu_count', ['4']), ...]. */
export function pyKeyLists(lists: ReadonlyArray<readonly [string, readonly string[]]>): string {
  return `[${lists.map(([k, vs]) => `(${pyStr(k)}, [${vs.map(pyStr).join(', ')}])`).join(', ')}]`;
}

/** str() of a Python float: 4 -> "4.0", 1.5 -> "1.5", 1e16 -> "1e+16". */
export function pyFloat(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  const abs = Math.abs(n);
  if (abs !== 0 && (abs >= 1e16 || abs < 1e-4)) {
    const [mantissa = '0', exponent = '0'] = n.toExponential().split('e');
    const sign = exponent.startsWith('-') ? '-' : '+';
    return `${mantissa}e${sign}${exponent.replace(/^[+-]/, '').padStart(2, '0')}`;
  }
  return Number.isInteger(n) ? `${n}.0` : String(n);
}

/** json.dumps with its defaults: ", " and ": " separators, non-ASCII as \uXXXX. */
export function pyJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `{${entries.map(([k, v]) => `${pyJsonDumps(k)}: ${pyJsonDumps(v)}`).join(', ')}}`;
}
