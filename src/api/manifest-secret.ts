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
    const parsed = Secret.safeParse(named);
    if (parsed.success) return [];
    return parsed.error.issues.map((issue) => ({
      path: formatFieldPath(issue.path.filter((s): s is string | number => typeof s !== 'symbol')),
      reason: issue.message,
      type: 'Invalid' as const,
    }));
  });
}
