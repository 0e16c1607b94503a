import { pendingGenerateName } from './generate-name.ts';
import { documentName, isAbout, type ManifestDocument } from './manifest.ts';

// How an error about an object in a manifest says where it is, the same in validate, apply and
// demo -f: `hosts.yaml:14:7: BareMetalHost lab/h1: spec.bmc.address: reason`, as a compiler
// names a line, so an editor or a grep jumps to it. The line and column are the field's, or the
// object's start when the field is not written (a required one missing).

type Named = Pick<ManifestDocument, 'file' | 'index' | 'item' | 'line' | 'column' | 'kind' | 'name' | 'namespace' | 'object' | 'positionOf' | 'yamlError' | 'yamlErrorAt'>;

/** `BareMetalHost lab/h1`; by its generateName, or its document, when it has no name. */
export function objectName(doc: Named): string {
  if (doc.kind === undefined) return documentName(doc);
  if (doc.name) return `${doc.kind} ${doc.namespace}/${doc.name}`;
  const generate = pendingGenerateName(doc.object);
  if (generate !== null) return `${doc.kind} ${doc.namespace}/(generateName ${JSON.stringify(generate)})`;
  return `${doc.kind} (unnamed, ${documentName(doc)})`;
}

/**
 * `file:line:column`, of the field at `path` when it is written in the file; of the YAML error,
 * for a document that did not parse; else of the document.
 */
export function fieldPlace(doc: Named, path: string): string {
  const at = doc.positionOf?.(path) ?? (path === '' ? doc.yamlErrorAt : undefined) ?? { line: doc.line, column: doc.column };
  return `${doc.file}:${at.line}${at.column === undefined ? '' : `:${at.column}`}`;
}

/** One error about `doc`, at the field `path` ('' for the object as a whole). */
export function manifestError(doc: Named, path: string, message: string): string {
  return `${fieldPlace(doc, path)}: ${objectName(doc)}: ${path ? `${path}: ` : ''}${message}`;
}

/**
 * A document's YAML error as `file:line:column: document N: message`, at the error itself (the
 * document's first line was given before, and an editor jumped there); the message's own "at
 * line L, column C" is then said once, in front.
 */
export function yamlErrorLine(doc: Named & { readonly yamlError: string }): string {
  const at = doc.yamlErrorAt;
  const message = at === undefined ? doc.yamlError : doc.yamlError.replace(` at line ${at.line}, column ${at.column}`, '');
  return `${fieldPlace(doc, '')}: ${documentName(doc)}: ${message}`;
}

/** An issue a store or node reported about one of `docs` (by file, document and List item). */
export type DocumentIssue = { readonly file: string; readonly index: number; readonly item?: number; readonly path: string; readonly message: string };

/** The issue as manifestError says it, for the document it is about; null when none of `docs` is. */
export function issueInDocuments(issue: DocumentIssue, docs: readonly Named[]): string | null {
  const doc = docs.find((d) => isAbout(issue, d));
  if (doc === undefined) return null;
  // A store reports a document that did not parse as "YAML: " and the error: said as validate says it.
  if (doc.yamlError !== undefined) return yamlErrorLine({ ...doc, yamlError: doc.yamlError });
  return manifestError(doc, issue.path, issue.message);
}
