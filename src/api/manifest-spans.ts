// Where each YAML document of a stream lies, found without parsing: a document starts at a line
// that begins with `---` followed by a space or the line's end, the directives-end marker, which
// YAML forbids at column 0 anywhere else (inside block and quoted scalars too), so cutting there
// never splits a document. kubectl's YAML reader cuts manifests at the same lines. Directives
// (`%YAML`, `%TAG`) right above a marker belong to the document it starts.

export interface DocumentSpan {
  /** Offsets into the source, end exclusive. */
  readonly start: number;
  readonly end: number;
  /** 1-based line of `start`. */
  readonly line: number;
}

// A byte order mark may stand before it: files saved with one and joined (`cat a.yaml b.yaml`)
// have one at the start of a line, which go-yaml skips there as kubectl reads the file.
const MARKER = /^\uFEFF?---(?=[ \t\r\n]|$)/gm;

function newlines(source: string, from: number, to: number): number {
  let n = 0;
  for (let i = source.indexOf('\n', from); i !== -1 && i < to; i = source.indexOf('\n', i + 1)) n += 1;
  return n;
}

export function* documentSpans(source: string): Generator<DocumentSpan> {
  let start = 0;
  let line = 1;
  for (const match of source.matchAll(MARKER)) {
    let at = match.index;
    while (at > start) {
      const previous = source.lastIndexOf('\n', at - 2) + 1;
      if (previous < start || source[previous] !== '%') break;
      at = previous;
    }
    if (at <= start) continue;
    yield { start, end: at, line };
    line += newlines(source, start, at);
    start = at;
  }
  if (start < source.length) yield { start, end: source.length, line };
}
