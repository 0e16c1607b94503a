import type { z } from 'zod';
import { formatFieldPath, valueAt, type FieldError } from '../field-error.ts';

// zod issues as FieldErrors, worded the way the API server words a CRD's structural validation
// ("Required value", "should be greater than or equal to 0"), so `metalfleet validate` reads like
// `kubectl apply` would for the same manifest. Values are quoted: no MAAS field holds a secret.

// Every number in CAPMAAS's CRDs is an integer, and a string where one is due fails zod's
// number check before its integer check.
const TYPE_NAMES: Record<string, string> = { int: 'integer', number: 'integer', string: 'string', boolean: 'boolean', object: 'object', array: 'array', record: 'object' };

function shown(value: unknown): string {
  if (value === null) return 'null';
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? JSON.stringify(value) : typeof value;
}

function toFieldError(issue: z.core.$ZodIssue, root: unknown): FieldError {
  const segments = issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
  const path = formatFieldPath(segments) || '(root)';
  const value = valueAt(root, issue.path);
  // A missing literal (apiVersion, kind) fails as a wrong value, a missing field as a wrong type.
  if (value === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_value')) {
    // The name is ObjectMeta's, which the API server checks itself, in its own words.
    if (path === 'metadata.name') return { path, reason: 'Required value: name or generateName is required', type: 'Required' };
    return { path, reason: 'Required value', type: 'Required' };
  }
  switch (issue.code) {
    case 'invalid_type':
      return { path, reason: `Invalid value: ${shown(value)}: must be of type ${TYPE_NAMES[issue.expected] ?? issue.expected}`, type: 'TypeInvalid' };
    case 'invalid_value':
      return { path, reason: `Unsupported value: ${shown(value)}: supported values: ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`, type: 'NotSupported' };
    case 'too_small': {
      const min = String(issue.minimum);
      const reason = issue.origin === 'string' ? `should be at least ${min} chars long`
        : issue.origin === 'array' || issue.origin === 'set' ? `should have at least ${min} items`
          : `should be greater than ${issue.inclusive ? 'or equal to ' : ''}${min}`;
      return { path, reason: `Invalid value: ${shown(value)}: ${reason}`, type: 'Invalid' };
    }
    case 'too_big': {
      // field.TooLong and field.TooMany, as the API server words maxLength and maxItems.
      const max = String(issue.maximum);
      if (issue.origin === 'string') return { path, reason: `Too long: may not be more than ${max} bytes`, type: 'TooLong' };
      if (issue.origin === 'array' || issue.origin === 'set') {
        const count = Array.isArray(value) ? `${value.length}: ` : '';
        return { path, reason: `Too many: ${count}must have at most ${max} items`, type: 'TooMany' };
      }
      return { path, reason: `Invalid value: ${shown(value)}: should be less than ${issue.inclusive ? 'or equal to ' : ''}${max}`, type: 'Invalid' };
    }
    default:
      return { path, reason: issue.message, type: 'Invalid' };
  }
}

/**
 * Every issue of parsing `obj` with `schema`, one FieldError each, in the schema's field order.
 * Give `obj` with its nulls already pruned when the schema prunes them, so the values quoted are
 * the ones the schema saw.
 */
export function structuralErrors(schema: z.ZodType, obj: unknown): FieldError[] {
  const parsed = schema.safeParse(obj);
  return parsed.success ? [] : parsed.error.issues.map((issue) => toFieldError(issue, obj));
}
