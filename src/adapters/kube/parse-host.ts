import { BareMetalHost } from '../../api/index.ts';
import type { Parsed, RawObject } from './raw-object.ts';
import { describeIssues } from './raw-object.ts';

/** A BareMetalHost from the API server, or the fields that keep it from being one. */
export function parseHost(raw: RawObject): Parsed<BareMetalHost> {
  const parsed = BareMetalHost.safeParse(raw);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problems: describeIssues(parsed.error.issues) };
}
