import { LineCounter, parseAllDocuments } from 'yaml';

// Multi-document YAML manifests, as a user would `kubectl apply -f` them. Parsing never throws: a
// syntax error belongs to the document it is in, so the other documents still get checked.

export type ManifestDocument = {
  file: string;
  /** 0-based position of the document in the stream (empty documents are skipped, not renumbered). */
  index: number;
  /** 1-based line where the document's content starts. */
  line: number;
  apiVersion?: string;
  kind?: string;
  name?: string;
  /** `metadata.namespace`, or `default`. */
  namespace: string;
  object: unknown;
  /** First YAML syntax error of the document, with its line and column; no source excerpt. */
  yamlError?: string;
};

export type ManifestKind = 'BareMetalHost' | 'Secret' | 'other';

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

// The yaml package appends a source excerpt to its messages; a Secret's excerpt can hold a
// password, so only the first line (what and where) is kept.
function firstLine(message: string): string {
  return (message.split('\n')[0] ?? '').replace(/:\s*$/, '');
}

export function readManifests(source: string, file: string): ManifestDocument[] {
  const lineCounter = new LineCounter();
  const parsed = parseAllDocuments(source, { lineCounter, prettyErrors: true });
  const docs = Array.isArray(parsed) ? parsed : [];
  const out: ManifestDocument[] = [];
  docs.forEach((doc, index) => {
    const start = doc.contents?.range[0] ?? doc.range[0];
    const line = lineCounter.linePos(start).line;
    const error = doc.errors[0];
    let object: unknown = null;
    let conversionError: string | undefined;
    try {
      object = doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      conversionError = err instanceof Error ? firstLine(err.message) : 'cannot convert the document';
    }
    if (!error && conversionError === undefined && (object === null || object === undefined)) return;

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
    if (error) {
      const at = error.linePos?.[0];
      const where = at && !/ at line \d+/.test(error.message) ? ` at line ${at.line}, column ${at.col}` : '';
      entry.yamlError = `${firstLine(error.message)}${where}`;
    } else if (conversionError !== undefined) {
      entry.yamlError = conversionError;
    }
    out.push(entry);
  });
  return out;
}

/** Which of metalfleet's kinds a document is; anything it does not manage is `other`. */
export function kindOf(doc: Pick<ManifestDocument, 'apiVersion' | 'kind'>): ManifestKind {
  // A host without apiVersion is still a host: validation then names the missing field.
  if (doc.kind === 'BareMetalHost' && (doc.apiVersion === undefined || doc.apiVersion.startsWith('metal3.io/'))) return 'BareMetalHost';
  if (doc.kind === 'Secret' && doc.apiVersion === 'v1') return 'Secret';
  return 'other';
}
