import { Composer, isAlias, isMap, isScalar, isSeq, LineCounter, Parser, visit, type Document, type YAMLMap } from 'yaml';
import { aliasTargetsOf, applyMergesInOrder, excessiveAliasing, isMerge } from './manifest-merges.ts';
import { formatBytes, MAX_DOCUMENT_BYTES, utf8Length } from './limits.ts';
import { kubectlScalarTags } from './manifest-scalars.ts';
import { fieldOffset, pathSegments, type Position } from './manifest-positions.ts';
import { documentSpans } from './manifest-spans.ts';

// Multi-document YAML manifests, as a user would `kubectl apply -f` them. Parsing never throws: a
// syntax error belongs to the document it is in, so the other documents still get checked.
//
// Documents are parsed one at a time (manifestDocuments is a generator): the parser's tree of one
// document is garbage before the next is parsed, so a 20 MB manifest of many small hosts costs
// its text and the parsed objects, not a tree of the whole file (issue 19.5). A document over
// MAX_DOCUMENT_BYTES is refused before it is parsed. The yaml package's own duplicate-key check is
// off: it compares each key with every earlier one of its map, quadratic in the keys of a map (1 MB
// of keys in one map took 16 s, 4 MB over a minute), and kubectl takes a key written twice anyway.

export type ManifestDocument = {
  file: string;
  /** 0-based position of the document in the stream (empty documents are skipped, not renumbered). */
  index: number;
  /** 0-based position in its document's List `items`, for an object that came from a List. */
  item?: number;
  /** 1-based line where the document's content starts (the item's, for a List item). */
  line: number;
  /** 1-based column of that start, for a document that parsed. */
  column?: number;
  /**
   * Where the field at a path (`spec.bmc.address`, as FieldError paths are written) is in the
   * file; the object's start when the field is not written there. For a document that parsed.
   */
  positionOf?: (path: string) => Position;
  apiVersion?: string;
  kind?: string;
  name?: string;
  /** `metadata.namespace`, or `default`. */
  namespace: string;
  object: unknown;
  /**
   * First YAML syntax error of the document, with its line and column; no source excerpt. Also
   * why a List item that parsed cannot be read as one object (a List inside a List).
   */
  yamlError?: string;
  /** Where the YAML error is (its line and column are in yamlError too), when it has a place. */
  yamlErrorAt?: Position;
};

export type ManifestKind = 'BareMetalHost' | 'Secret' | 'other';

/**
 * How deep a document may nest. Kubernetes objects nest a dozen levels; past this the parse and
 * every walk of the object would risk the stack (5,000 nested arrays overflowed it: issue 19.6).
 */
export const MAX_DOCUMENT_DEPTH = 100;

// A billion-laughs document expands aliases exponentially; 100 is what the yaml package allows.
const MAX_ALIAS_COUNT = 100;
/**
 * Aliases in one document. The yaml package looks each alias's anchor up by walking the document,
 * so many aliases cost aliases x nodes (1,000 took over a minute); manifests use a handful.
 */
export const MAX_DOCUMENT_ALIASES = 100;

// The anchors open above a node: an alias to one of them is the node inside itself.
type OpenAnchors = { readonly name: string; readonly parent: OpenAnchors | null } | null;

function isOpen(open: OpenAnchors, name: string): boolean {
  for (let a = open; a !== null; a = a.parent) if (a.name === name) return true;
  return false;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

// The yaml package appends a source excerpt to its messages; a Secret's excerpt can hold a
// password, so only the first line (what and where) is kept.
function firstLine(message: string): string {
  return withoutSourceText((message.split('\n')[0] ?? '').replace(/:\s*$/, ''));
}

// Some of the yaml package's first lines quote the offending text itself: an alias's name, a tag,
// a bad escape's characters (up to ten of them), a block scalar header, a stray token. In a
// Secret that text is the password (one written unquoted starting with "*" or "!", or "C:\Users"
// in double quotes), so the quote is cut; the line and column that follow say where it is.
const SOURCE_TEXT: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(Unresolved alias \(the anchor must be set before the alias\)): .*$/s, '$1'],
  [/^(Could not resolve tag|Not a valid tag|Unresolved tag|Block scalar header includes extra characters|Not a YAML token): .*$/s, '$1'],
  [/^Verbatim tags aren't resolved, so .* is invalid\.?$/s, "Verbatim tags aren't resolved"],
  [/^(Invalid escape sequence) .*$/s, '$1'],
  [/^(Unexpected [\w-]+ token in YAML (?:stream|document)): ".*"$/s, '$1'],
];

function withoutSourceText(message: string): string {
  for (const [pattern, replacement] of SOURCE_TEXT) if (pattern.test(message)) return message.replace(pattern, replacement);
  return message;
}

// Where the first alias is whose anchor is not set before it (what toJS throws on, without a
// position and with the alias's name). Only called on a document structureProblem passed, so
// the recursive visit stays within MAX_DOCUMENT_DEPTH.
function unresolvedAliasOffset(doc: Document.Parsed): number | null {
  const anchors = new Set<string>();
  let offset: number | null = null;
  visit(doc, (_key, node) => {
    if (isAlias(node)) {
      if (anchors.has(node.source)) return undefined;
      offset = node.range?.[0] ?? 0;
      return visit.BREAK;
    }
    const anchor = (node as { anchor?: unknown } | null)?.anchor;
    if (typeof anchor === 'string') anchors.add(anchor);
    return undefined;
  });
  return offset;
}

/**
 * The first too-deep node, alias past the limit or alias to an anchor it is inside of (a value
 * that contains itself) in the document; walked without recursion. Adds the maps with a `<<` to `merging`.
 */
function structureProblem(doc: Document.Parsed, merging: YAMLMap[]): { offset: number; message: string } | null {
  const stack: Array<{ node: unknown; depth: number; open: OpenAnchors }> = [{ node: doc.contents, depth: 1, open: null }];
  let aliases = 0;
  while (stack.length > 0) {
    const { node, depth, open: above } = stack.pop()!;
    // kubectl cannot turn .inf or .nan into JSON and refuses the file; JSON.stringify would send null.
    if (isScalar(node) && typeof node.value === 'number' && !Number.isFinite(node.value)) {
      return { offset: node.range?.[0] ?? 0, message: `${String(node.source ?? node.value)} is not a number JSON can carry (kubectl refuses it too; quote it for a string)` };
    }
    if (isAlias(node)) {
      aliases += 1;
      if (aliases > MAX_DOCUMENT_ALIASES) return { offset: node.range?.[0] ?? 0, message: `more than ${MAX_DOCUMENT_ALIASES} aliases in one document` };
      if (isOpen(above, node.source)) return { offset: node.range?.[0] ?? 0, message: `alias *${node.source} refers to the value it is in` };
      continue;
    }
    const anchor = (node as { anchor?: unknown } | null)?.anchor;
    const open: OpenAnchors = typeof anchor === 'string' ? { name: anchor, parent: above } : above;
    if (isMap(node) || isSeq(node)) {
      if (depth > MAX_DOCUMENT_DEPTH) return { offset: node.range?.[0] ?? 0, message: `nesting deeper than ${MAX_DOCUMENT_DEPTH} levels` };
    }
    if (isMap(node)) {
      // A key written twice is no problem: kubectl keeps its last value without a word, whether
      // the value is the same or not, and so does toJS (on, y and true are one key "true" too).
      let merges = false;
      for (const pair of node.items) {
        if (pair.key !== null && !isScalar(pair.key)) stack.push({ node: pair.key, depth: depth + 1, open });
        stack.push({ node: pair.value, depth: depth + 1, open });
        merges ||= isMerge(pair);
      }
      if (merges) merging.push(node);
    } else if (isSeq(node)) {
      for (const item of node.items) stack.push({ node: item, depth: depth + 1, open });
    }
  }
  return null;
}

// A document too big to parse still says what it is when its head does: top-level kind and
// metadata.name, read with two bounded regexes (no parse).
function headOf(textOfDoc: string): { kind?: string; name?: string } {
  const head = textOfDoc.slice(0, 4096);
  const kind = /^kind:[ \t]*["']?([A-Za-z0-9]+)/m.exec(head)?.[1];
  const name = /^metadata:[ \t]*\r?\n(?:[ \t]+[^\n]*\n)*?[ \t]+name:[ \t]*["']?([^"'\s#]+)/m.exec(head)?.[1];
  return { ...(kind ? { kind } : {}), ...(name ? { name } : {}) };
}

// Files saved with a byte order mark and joined with `---` between them have one at the start of
// each later document's first line. go-yaml (kubectl) skips a BOM at the start of a line; the yaml
// package reads it as the first key's first character ("\uFEFFapiVersion": a host without an
// apiVersion, a Secret no Secret), so it is dropped here (the line's columns then count from after
// it, as an editor shows them). One at the chunk's very start is the yaml package's own to skip.
const BOM_AFTER_MARKER = /^((?:%[^\n]*\n)*\uFEFF?---[^\n]*\n)\uFEFF/;

/** The documents of `source`, parsed one at a time. */
export function* manifestDocuments(source: string, file: string): Generator<ManifestDocument> {
  let index = 0;
  for (const span of documentSpans(source)) {
    const chunk = source.slice(span.start, span.end).replace(BOM_AFTER_MARKER, '$1');
    const bytes = utf8Length(chunk);
    if (bytes > MAX_DOCUMENT_BYTES) {
      const head = headOf(chunk.replace(/^---[^\n]*\n/, ''));
      yield {
        file, index, line: span.line, namespace: 'default', object: null, ...head,
        yamlError: `the document is ${formatBytes(bytes)} of YAML (${bytes} bytes); a document may be at most ${formatBytes(MAX_DOCUMENT_BYTES)} (${MAX_DOCUMENT_BYTES} bytes: one object must fit in a NATS message), so it was not parsed`,
      };
      index += 1;
      continue;
    }
    for (const objects of parseChunk(chunk, file, span.line, index)) {
      index += 1;
      if (objects !== null) yield* objects;
    }
  }
}

type Where = (offset: number) => { line: number; col: number };

// The documents of one chunk, and where an offset into it is in the file. Throws what the parser
// throws (a stack it overflowed).
function composeChunk(chunk: string, firstLine0: number): { docs: Document.Parsed[]; where: Where } {
  const lineCounter = new LineCounter();
  // A byte order mark is no column a user sees: the first line's columns count from after it.
  const bom = chunk.charCodeAt(0) === 0xfeff ? 1 : 0;
  const where = (offset: number): { line: number; col: number } => {
    const pos = lineCounter.linePos(offset);
    return { line: pos.line + firstLine0 - 1, col: pos.line === 1 ? Math.max(1, pos.col - bom) : pos.col };
  };
  const parser = new Parser(lineCounter.addNewLine);
  // Warnings (a collection as a key, stringified) would go to the process's stderr; errors are ours.
  // Plain scalars and `<<` merge keys read as kubectl reads them (manifest-scalars.ts).
  const composer = new Composer({ uniqueKeys: false, logLevel: 'error', schema: 'core', customTags: kubectlScalarTags, merge: true });
  return { docs: Array.from(composer.compose(parser.parse(chunk))), where };
}

// Finds a field of the chunk's k-th document (under `prefix`, a List item's place) by parsing the
// chunk again: only errors ask, and the tree of every document is not kept for them.
function locator(chunk: string, firstLine0: number, k: number, prefix: readonly string[], start: Position): (path: string) => Position {
  return (path) => {
    if (path === '') return start;
    const { docs, where } = composeChunk(chunk, firstLine0);
    const offset = docs[k] === undefined ? null : fieldOffset(docs[k].contents, [...prefix, ...pathSegments(path)]);
    if (offset === null) return start;
    const at = where(offset);
    return { line: at.line, column: at.col };
  };
}

function* parseChunk(chunk: string, file: string, firstLine0: number, firstIndex: number): Generator<ManifestDocument[] | null> {
  let docs: Document.Parsed[];
  let where: Where;
  try {
    ({ docs, where } = composeChunk(chunk, firstLine0));
  } catch (err) {
    // The parser recurses per level of flow nesting; a stack it overflows is the document's fault.
    const reason = err instanceof RangeError ? `nesting deeper than the parser can follow (more than ${MAX_DOCUMENT_DEPTH} levels are refused)` : `cannot parse: ${err instanceof Error ? firstLine(err.message) : 'unknown error'}`;
    yield [{ file, index: firstIndex, line: firstLine0, namespace: 'default', object: null, yamlError: reason }];
    return;
  }
  let index = firstIndex;
  for (const [k, doc] of docs.entries()) {
    const locate = (prefix: readonly string[], start: Position): ((path: string) => Position) => locator(chunk, firstLine0, k, prefix, start);
    yield toManifestDocument(doc, file, index++, where, locate);
  }
}

type Locate = (prefix: readonly string[], start: Position) => (path: string) => Position;

// The objects of one parsed document: itself, or a List's items; null for an empty document.
function toManifestDocument(doc: Document.Parsed, file: string, index: number, where: Where, locate: Locate): ManifestDocument[] | null {
  const start = doc.contents?.range[0] ?? doc.range[0];
  const { line, col } = where(start);
  const error = doc.errors[0];
  // An unknown tag (`!hunter2 x`, `!!int x`) is only a warning to the yaml package, which reads
  // the value without it: a Secret's password would become "x" without a word.
  const unknownTag = error ? undefined : doc.warnings.find((w) => w.code === 'TAG_RESOLVE_FAILED');
  const merging: YAMLMap[] = [];
  let problem = error || unknownTag ? null : structureProblem(doc, merging);
  const aliases = !error && !unknownTag && !problem && merging.length > 0 ? aliasTargetsOf(doc) : null;
  if (aliases !== null) problem = excessiveAliasing(doc, aliases.targets);
  let object: unknown = null;
  let conversionError: string | undefined;
  let conversionAt: Position | undefined;
  if (!problem) {
    if (aliases !== null) applyMergesInOrder(doc, merging, aliases);
    try {
      object = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (err) {
      conversionError = err instanceof RangeError && /call stack/i.test(err.message)
        ? `nesting deeper than ${MAX_DOCUMENT_DEPTH} levels`
        : err instanceof Error ? firstLine(err.message) : 'cannot convert the document';
      const alias = err instanceof ReferenceError && err.message.startsWith('Unresolved alias') ? unresolvedAliasOffset(doc) : null;
      if (alias !== null) {
        const at = where(alias);
        conversionError = `${conversionError} at line ${at.line}, column ${at.col}`;
        conversionAt = { line: at.line, column: at.col };
      }
    }
  }
  if (!error && !problem && conversionError === undefined && (object === null || object === undefined)) return null;

  const entry = entryOf(file, index, line, object);
  if (error) {
    const at = where(error.pos[0]);
    // The composer recurses per level and reports the stack it overflowed as the document's error.
    const message = /call stack/i.test(error.message) ? `nesting deeper than the parser can follow (more than ${MAX_DOCUMENT_DEPTH} levels are refused)` : firstLine(error.message);
    entry.yamlError = `${message} at line ${at.line}, column ${at.col}`;
    entry.yamlErrorAt = { line: at.line, column: at.col };
  } else if (unknownTag) {
    const at = where(unknownTag.pos[0]);
    // Not the tag itself: it may be a password's first characters.
    entry.yamlError = `unknown YAML tag at line ${at.line}, column ${at.col}: remove the tag, or quote the whole value`;
    entry.yamlErrorAt = { line: at.line, column: at.col };
  } else if (problem) {
    const at = where(problem.offset);
    entry.yamlError = `${problem.message} at line ${at.line}, column ${at.col}`;
    entry.yamlErrorAt = { line: at.line, column: at.col };
  } else if (conversionError !== undefined) {
    entry.yamlError = conversionError;
    if (conversionAt !== undefined) entry.yamlErrorAt = conversionAt;
  } else {
    const items = listItems(object);
    if (items !== null) return listEntries(doc, items, file, index, { line, column: col }, where, locate);
    entry.column = col;
    entry.positionOf = locate([], { line, column: col });
  }
  return [entry];
}

function entryOf(file: string, index: number, line: number, object: unknown): ManifestDocument {
  const obj = record(object);
  const metadata = record(obj?.metadata);
  const entry: ManifestDocument = {
    file,
    index,
    line,
    namespace: text(metadata?.namespace) || 'default',
    object,
  };
  const apiVersion = text(obj?.apiVersion);
  const kind = text(obj?.kind);
  const name = text(metadata?.name);
  if (apiVersion !== undefined) entry.apiVersion = apiVersion;
  if (kind !== undefined) entry.kind = kind;
  if (name !== undefined) entry.name = name;
  return entry;
}

// A v1 List, or a typed one (BareMetalHostList) as the API lists them: objects in `items`. Its
// hosts and Secrets used to be skipped as a kind metalfleet does not manage (validate passed an
// invalid host, demo -f ran nothing and said ok); kubectl reads the items one by one, and so do
// we. A kind that only ends in "List" without an items array is an object like any other.
function listItems(object: unknown): unknown[] | null {
  const obj = record(object);
  const kind = text(obj?.kind);
  if (kind === undefined || !kind.endsWith('List') || !Array.isArray(obj?.items)) return null;
  return obj.items;
}

// Each item is one object at its own line (where its node starts in `items`), so errors point
// at the item; the document's own checks (size, depth, aliases, YAML errors) covered all of it.
function listEntries(doc: Document.Parsed, items: readonly unknown[], file: string, index: number, list: Position, where: Where, locate: Locate): ManifestDocument[] {
  const contents = doc.contents;
  const nodes = isMap(contents) ? contents.get('items', true) : undefined;
  const itemNodes = isSeq(nodes) ? nodes.items : [];
  return items.map((object, item) => {
    const offset = (itemNodes[item] as { range?: [number, number, number] } | null | undefined)?.range?.[0];
    const at = offset === undefined ? list : (({ line, col }) => ({ line, column: col }))(where(offset));
    const entry: ManifestDocument = { ...entryOf(file, index, at.line, object), item };
    // kubectl does not expand a List inside a List either: its items would be read as nothing.
    if (listItems(object) !== null) entry.yamlError = "a List inside a List: kubectl does not expand nested Lists; put its items in the outer List's items";
    else {
      entry.column = at.column;
      entry.positionOf = locate(['items', String(item)], at);
    }
    return entry;
  });
}

type Place = { readonly file: string; readonly index: number; readonly item?: number | undefined; readonly line?: number | undefined };

/** Where a document is, as issues name it and requests carry it: file, document, List item, line. */
export function whereOf(doc: Place): { file: string; index: number; item?: number; line?: number } {
  return { file: doc.file, index: doc.index, ...(doc.item !== undefined ? { item: doc.item } : {}), ...(doc.line !== undefined ? { line: doc.line } : {}) };
}

/** Whether an issue is about this document: the same file, document and List item. */
export function isAbout(issue: Place, doc: Place): boolean {
  return issue.file === doc.file && issue.index === doc.index && issue.item === doc.item;
}

/**
 * How messages name where an object is: "document 2", or "document 2 item 3" for a List's item,
 * counted from 1 as a reader counts (apply, demo -f and the stores said "document 0" for what
 * validate called "document 1").
 */
export function documentName(doc: { readonly index: number; readonly item?: number | undefined }): string {
  return `document ${doc.index + 1}${doc.item === undefined ? '' : ` item ${doc.item + 1}`}`;
}

export function readManifests(source: string, file: string): ManifestDocument[] {
  return Array.from(manifestDocuments(source, file));
}

/** Which of metalfleet's kinds a document is; anything it does not manage is `other`. */
export function kindOf(doc: Pick<ManifestDocument, 'apiVersion' | 'kind'>): ManifestKind {
  // A host without apiVersion is still a host: validation then names the missing field.
  if (doc.kind === 'BareMetalHost' && (doc.apiVersion === undefined || doc.apiVersion.startsWith('metal3.io/'))) return 'BareMetalHost';
  if (doc.kind === 'Secret' && doc.apiVersion === 'v1') return 'Secret';
  return 'other';
}
