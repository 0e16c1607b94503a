import type { ManifestDocument } from './manifest.ts';
import { dns1123LabelProblems } from './names.ts';

// `-n NAMESPACE` for manifests, as kubectl applies it: an object that names no namespace goes to
// the one given; one naming another is refused by the command (validate.ts, in kubectl's words),
// so here it keeps its own and is still checked where it says it goes.

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** What is wrong with `namespace` as a namespace, in the API server's words; [] when nothing. */
export function namespaceProblems(namespace: string): string[] {
  return dns1123LabelProblems(namespace);
}

/** The document as if applied in `namespace`: its object and `namespace` set when it names none. */
export function placedIn(doc: ManifestDocument, namespace: string): ManifestDocument {
  const object = record(doc.object);
  if (object === undefined) return doc;
  const metadata = object.metadata === undefined ? {} : record(object.metadata);
  // A metadata of the wrong type is the schema's to name; a namespace given stays.
  if (metadata === undefined || (metadata.namespace !== undefined && metadata.namespace !== null && metadata.namespace !== '')) return doc;
  return { ...doc, namespace, object: { ...object, metadata: { ...metadata, namespace } } };
}
