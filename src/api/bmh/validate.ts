import type { z } from 'zod';
import { formatFieldPath, valueAt, type FieldError, type FieldErrorType } from '../field-error.ts';
import { BareMetalHost } from './schema.ts';
import { objectSizeErrors } from '../limits.ts';
import { objectMetaErrors } from '../names.ts';
import { checkAsCreated, pendingGenerateName } from '../generate-name.ts';
import { createRules, updateRules } from './validate-rules.ts';
import type { RuleOptions } from './validate-rules.ts';

export type { RuleOptions as ValidateOptions } from './validate-rules.ts';
import { readHost } from './validate-view.ts';
import { pruneHostNulls } from './prune-nulls.ts';

export { pruneHostNulls } from './prune-nulls.ts';

// Admission for a BareMetalHost: the structural schema first, then the baremetal-operator's
// webhook rules (reference/bmo.md §2.3). Every problem is returned, not only the first, so one run
// of `metalfleet validate` shows all there is to fix.

function issueType(issue: z.core.$ZodIssue, root: unknown): FieldErrorType {
  if (issue.code === 'invalid_type' && valueAt(root, issue.path) === undefined) return 'Required';
  if (issue.code === 'invalid_value') return 'NotSupported';
  if (issue.code === 'invalid_type') return 'TypeInvalid';
  if (issue.code === 'too_big' && issue.origin === 'string') return 'TooLong';
  if (issue.code === 'too_big' && (issue.origin === 'array' || issue.origin === 'set')) return 'TooMany';
  return 'Invalid';
}

function structuralErrors(obj: unknown): { errors: FieldError[]; codes: Map<string, string> } {
  const parsed = BareMetalHost.safeParse(obj);
  const codes = new Map<string, string>();
  if (parsed.success) return { errors: [], codes };
  const errors = parsed.error.issues.map((issue) => {
    const path = formatFieldPath(issue.path.map((p) => (typeof p === 'number' ? p : String(p))));
    codes.set(path, issue.code);
    return { path: path === '' ? '(root)' : path, reason: issue.message, type: issueType(issue, obj) };
  });
  return { errors, codes };
}

/**
 * Validates a BareMetalHost as BMO's webhook would on create, or on update when `old` (the stored
 * version) is given. Returns [] when the host is valid. A host with a generateName and no name is
 * checked as the API server checks it once it has named it.
 */
export function validateBareMetalHost(obj: unknown, old?: unknown, opts: RuleOptions = {}): FieldError[] {
  // Named only by generateName: checked under the name the store will give it, as a create, or
  // (validate --old pairs by generateName) as an update of the stored version given.
  if (pendingGenerateName(obj) !== null) return checkAsCreated(obj, (named) => validateBareMetalHost(named, old, opts));
  // Too big to store: nothing else is worth checking (and the rules need not walk it).
  const size = objectSizeErrors(obj);
  if (size.length > 0) return size;
  // What the API server would validate: `image:` with no value is no image, not a wrong type.
  const admitted = pruneHostNulls(obj);
  const meta = objectMetaErrors(admitted);
  const structural = structuralErrors(admitted);
  const host = readHost(admitted);
  const rules = createRules(host, opts);
  if (old !== undefined) rules.push(...updateRules(readHost(pruneHostNulls(old)), host));
  // Where a rule speaks about a value the schema's enum or pattern also rejected (checksumType,
  // inspectionMode, a MAC), BMO's message is the one to show.
  const rulePaths = new Set(rules.map((e) => e.path));
  const overlapping = new Set(['invalid_value', 'invalid_format']);
  const kept = structural.errors.filter((e) => !(rulePaths.has(e.path) && overlapping.has(structural.codes.get(e.path) ?? '')));
  // BMO's rule 6 speaks about the name in its own words where both refuse it: one error is enough.
  return [...meta.filter((e) => !rulePaths.has(e.path)), ...kept, ...rules];
}
