import { Secret } from '../../api/secret.ts';
import type { Parsed, RawObject } from './raw-object.ts';
import { describeIssues } from './raw-object.ts';

/**
 * A Secret as src/api/secret.ts types it: `data` stays base64 (secretValue decodes it when a
 * value is used) but must decode, so a broken value is caught here. Only identity metadata is
 * kept: list items (typed models) and watch events (JSON) differ in everything else. The
 * problems name fields only; zod never echoes a value.
 */
export function parseSecret(raw: RawObject): Parsed<Secret> {
  const r = raw as RawObject & { type?: unknown; immutable?: unknown; data?: unknown };
  const m = raw.metadata;
  const candidate = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: m.name,
      namespace: m.namespace ?? 'default',
      ...(m.uid !== undefined ? { uid: m.uid } : {}),
      ...(m.resourceVersion !== undefined ? { resourceVersion: m.resourceVersion } : {}),
      ...(m.labels !== undefined ? { labels: m.labels } : {}),
    },
    ...(r.type !== undefined && r.type !== null ? { type: r.type } : {}),
    ...(r.immutable !== undefined && r.immutable !== null ? { immutable: r.immutable } : {}),
    ...(r.data !== undefined && r.data !== null ? { data: r.data } : {}),
  };
  const parsed = Secret.safeParse(candidate);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problems: describeIssues(parsed.error.issues) };
}
