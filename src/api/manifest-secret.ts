import { formatFieldPath, type FieldError } from './field-error.ts';
import { checkAsCreated } from './generate-name.ts';
import { objectMetaErrors } from './names.ts';
import { Secret } from './secret.ts';

// A Secret in a manifest, checked as the stores check one before keeping it (adapters/store
// validate.ts): its metadata by the API server's rules, then its shape (data base64, stringData
// strings). validate skipped Secrets, so one demo -f or a node's --secrets refuses passed it.
// zod's messages never hold the input, so no value of the Secret is in them.

/** What is wrong with `object` as a Secret; [] when nothing. */
export function secretErrors(object: unknown): FieldError[] {
  return checkAsCreated(object, (named) => {
    const meta = objectMetaErrors(named);
    if (meta.length > 0) return meta;
    const parsed = Secret.safeParse(withDataUnwrapped(named));
    if (parsed.success) return [];
    return parsed.error.issues.map((issue) => ({
      path: formatFieldPath(issue.path.filter((s): s is string | number => typeof s !== 'symbol')),
      reason: issue.message,
      type: 'Invalid' as const,
    }));
  });
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/**
 * `object` with its Secret `data` values as the API server decodes them: Go's base64 decoder skips
 * line breaks, so a value written as `base64` prints it (wrapped at 76 columns, in a `|` block
 * with its final newline) is the same bytes as on one line. Such a Secret was refused ("data
 * values must be base64") where kubectl stores it. Anything else is left for the schema to name.
 */
export function withDataUnwrapped(object: unknown): unknown {
  const secret = record(object);
  const data = record(secret?.data);
  if (secret === undefined || data === undefined || !Object.values(data).some((v) => typeof v === 'string' && /[\r\n]/.test(v))) return object;
  const unwrapped = Object.fromEntries(Object.entries(data).map(([key, value]) => [key, typeof value === 'string' ? value.replace(/[\r\n]/g, '') : value]));
  return { ...secret, data: unwrapped };
}
