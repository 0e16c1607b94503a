import { ApiObject } from '../../api/index.ts';
import type { StoredObject } from '../../ports/index.ts';
import type { Parsed, RawObject } from './raw-object.ts';
import { describeIssues } from './raw-object.ts';

// A Cluster API object as the one store (ResourceStore) hands it out: the shape the MAAS actors read. The CRD
// (and its webhook) validates the kind's own fields; ApiObject, the schema the KV object store
// keeps its records in, checks what the actors rely on, so both stores hand out the same shape.
export function parseStoredObject(raw: RawObject): Parsed<StoredObject> {
  const parsed = ApiObject.safeParse(raw);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problems: describeIssues(parsed.error.issues) };
}
