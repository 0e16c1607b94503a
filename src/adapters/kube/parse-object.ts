import { z } from 'zod';
import type { StoredObject } from '../../ports/index.ts';
import type { Parsed, RawObject } from './raw-object.ts';
import { describeIssues } from './raw-object.ts';

// A Cluster API object as the ObjectStore hands it out: the shape the MAAS actors read. The CRD
// (and its webhook) validates the kind's own fields; this checks what the actors rely on.
const Owner = z.object({ kind: z.string(), name: z.string(), apiVersion: z.string().optional() });
const StoredObjectSchema = z.object({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: z.object({
    name: z.string().min(1),
    namespace: z.string().default('default'),
    uid: z.string().optional(),
    generation: z.number().int().optional(),
    labels: z.record(z.string(), z.string()).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
    finalizers: z.array(z.string()).optional(),
    deletionTimestamp: z.string().optional(),
    ownerReferences: z.array(Owner).optional(),
  }),
  spec: z.record(z.string(), z.unknown()).optional(),
  status: z.record(z.string(), z.unknown()).optional(),
});

export function parseStoredObject(raw: RawObject): Parsed<StoredObject> {
  const parsed = StoredObjectSchema.safeParse(raw);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problems: describeIssues(parsed.error.issues) };
}
