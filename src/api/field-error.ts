// A validation failure tied to one field of a resource, in the shape Kubernetes admission errors
// use (field.Error): the field path, what is wrong, and the kind of problem.

// field.ErrorType's names: a wrong type and a value over its length or item bound have their own
// (FieldValueTypeInvalid, FieldValueTooLong, FieldValueTooMany), which clients match on.
export type FieldErrorType = 'Invalid' | 'TypeInvalid' | 'TooLong' | 'TooMany' | 'Forbidden' | 'Required' | 'NotSupported' | 'Duplicate';

export type FieldError = {
  /** Kubernetes field path: `spec.bmc.address`, `spec.raid.softwareRAIDVolumes[1].level`, `metadata.annotations[reboot.metal3.io/x]`. */
  path: string;
  reason: string;
  type?: FieldErrorType;
};

export type FieldPathSegment = string | number;

export function fieldError(path: string, reason: string, type: FieldErrorType = 'Invalid'): FieldError {
  return { path, reason, type };
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

// Indices and keys that are not plain identifiers (annotation names, labels) go in brackets, as
// kubectl and the API server print them.
export function formatFieldPath(segments: readonly FieldPathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${segment}]`;
  }
  return out;
}

/** The path of one annotation, e.g. `metadata.annotations[reboot.metal3.io/phase1]`. */
export function annotationPath(key: string): string {
  return `metadata.annotations[${key}]`;
}

export function formatFieldError(error: FieldError): string {
  return `${error.path}: ${error.reason}`;
}

// The value an issue's path points at in the object as given (undefined when absent), to tell a
// missing field from a wrong one.
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}
