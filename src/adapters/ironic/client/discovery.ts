import { z } from 'zod';

// GET / lists the major versions; GET /v1/ describes v1 and its microversion range.
const VersionEntry = z.looseObject({ id: z.string(), version: z.string().optional(), min_version: z.string().optional() });
export const RootDocument = z.looseObject({
  versions: z.array(VersionEntry).optional(),
  default_version: VersionEntry.optional(),
});
export const V1Document = z.looseObject({ id: z.string().optional(), version: VersionEntry.optional() });
